import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli';
import { startSandbox } from '../../src/sandbox/server';
import { rowsFile } from '../helpers/import-run';

/**
 * Two imports at once on one key at the sandbox's Free plan (60 a window, shortened to 3 s), each process
 * claiming from the state they share. One import alone at the real minute: test/api/gate-real-scale.test.ts;
 * an import beside a loop of other commands: bulk-reserve.test.ts. The rate is bench/bulk.mjs's to measure.
 */

describe('pacing against the sandbox (Free: 60 per 3 s window)', () => {
  it('two imports at once with the same key: at most two 429s together, never banned, every row of both created once', { timeout: 60_000 }, async (t) => {
    const dir = tempDir();
    const statuses: Array<{ method: string; status: number }> = [];
    const sandbox = await startSandbox({ port: 0, minuteMs: 3000, log: (line) => statuses.push({ method: line.split(' ')[0]!, status: Number(line.split(' ')[2]) }) });
    t.onTestFinished(() => sandbox.close());
    // Each with its own journal: imports of one journal take turns, and these must run at once.
    const importOwn = (name: string) =>
      runCli(['--base-url', sandbox.baseUrl, 'pets', 'add', '--file', rowsFile(dir, name, 70, `${name}-`), '--journal', path.join(dir, `${name}.journal`)], {
        env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-free' },
        timeoutMs: 60_000,
      });
    const [a, b] = await Promise.all([importOwn('first'), importOwn('second')]);

    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(statuses.filter((entry) => entry.status === 429).length).toBeLessThanOrEqual(2);
    expect(statuses.filter((entry) => entry.method === 'POST' && entry.status === 201)).toHaveLength(140);
  });
});
