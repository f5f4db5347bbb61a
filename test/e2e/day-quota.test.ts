import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli';
import { namedTime } from '../helpers/local-time';
import { storedPets } from '../helpers/sandbox-data';
import { startSandboxProcess } from '../helpers/sandbox-process';

/**
 * The day's quota used up mid-import (`--enterprise-quota 1000/50`). The day passes at once for both
 * sides: the sandbox restarts with its counts gone, and the client's block is moved a day back.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
/** What a day passing does to this machine's rate-limit state: every remembered time is a day earlier. */
function aDayPassesFor(configDir: string): void {
  const file = path.join(configDir, 'state.json');
  const state = JSON.parse(fs.readFileSync(file, 'utf8')) as { limits: Record<string, Record<string, unknown>> };
  for (const entry of Object.values(state.limits)) {
    for (const field of ['blockedUntil', 'probeUntil', 'untrackedUntil']) if (typeof entry[field] === 'number') entry[field] = (entry[field] as number) - DAY_MS;
    const window = entry.window as { resetAt: number } | undefined;
    if (window) window.resetAt -= DAY_MS;
  }
  fs.writeFileSync(file, JSON.stringify(state));
}

describe('the day quota used up mid-import', () => {
  it('80 rows against 50 a day: exit 5 after 50 created, with the count left and the local time to resume; the rerun after the reset creates the other 30 once', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const dataFile = path.join(dir, 'pets.json');
    const file = path.join(dir, 'rows.ndjson');
    const names = Array.from({ length: 80 }, (_, i) => `day-${i + 1}`);
    fs.writeFileSync(file, names.map((name) => `{"name":"${name}","categoryId":1}`).join('\n'));
    const configDir = path.join(dir, 'config');
    const env = { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: 'sandbox-enterprise' };

    const first = await startSandboxProcess(['--port', '0', '--data', dataFile, '--enterprise-quota', '1000/50']);
    const port = new URL(first.baseUrl).port;
    const started = Date.now();
    const stopped = await runCli(['--base-url', first.baseUrl, 'pets', 'add', '--file', file], { env });

    expect(stopped.code, stopped.stderr).toBe(5);
    // It stopped rather than wait for the day's reset: no wait was announced.
    expect(stopped.stderr).not.toMatch(/^petctl: .*waiting/m);
    expect(stopped.stderr).toMatch(/^created 50, skipped 0, rejected 0, invalid 0, unknown 0 in /m);
    expect(stopped.stderr).toMatch(
      /^error: the rate limit stopped the import: the daily quota is used up; 50 rows created, 30 left; resume at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, in 2[34]h\d\dm: rerun the same command \(quota_exhausted(, HTTP 429)?\)$/m,
    );
    expect(stopped.stderr).not.toMatch(/nothing sent/);
    expect(namedTime(stopped.stderr.slice(stopped.stderr.indexOf('error:')))).toBeGreaterThan(started + DAY_MS - 60_000);
    expect(storedPets(dataFile).filter((pet) => pet.name.startsWith('day-'))).toHaveLength(50);
    await first.stop();

    // The next day: the sandbox's counts start afresh, and this machine's block has expired.
    fs.rmSync(`${dataFile}.limits.json`, { force: true });
    aDayPassesFor(configDir);
    const second = await startSandboxProcess(['--port', port, '--data', dataFile, '--enterprise-quota', '1000/50']);
    const resumed = await runCli(['--base-url', second.baseUrl, 'pets', 'add', '--file', file], { env });
    await second.stop();

    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/^created 30, skipped 50, rejected 0, invalid 0, unknown 0 in /m);
    const stored = storedPets(dataFile).filter((pet) => pet.name.startsWith('day-'));
    expect(stored.map((pet) => pet.name).sort()).toEqual([...names].sort());
  });
});
