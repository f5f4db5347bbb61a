import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli';
import { storedPets } from '../helpers/sandbox-data';
import { shelter } from '../helpers/shelter';
import { startSandbox } from '../../src/sandbox/server';
import { importSummary } from '../helpers/import-run';

/**
 * A shelter reruns its imports against the sandbox (real HTTP, a real data file): --id-column's ids, and
 * --new stopped by Ctrl-C. What counts is what the data file holds afterwards. Which rows a rerun matches
 * (edited, reordered, appended to, from another file, by --id-column or not): test/bulk/journal.test.ts.
 */

describe.concurrent('rerunning an import after editing the file', () => {
  it('--id-column: a row without an id, or with an id used twice, is invalid (exit 6 without --skip-invalid, nothing sent)', async (t) => {
    const { petctl, write, created } = await shelter(t);
    const file = write('intake.ndjson', '{"id":"A-1","name":"Rex","categoryId":1}\n{"name":"Bo","categoryId":1}\n{"id":"A-1","name":"Rexy","categoryId":1}\n{"id":7,"name":"Cy","categoryId":1}\n');
    const refused = await petctl(['pets', 'add', '--file', file, '--id-column', 'id']);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('line 2 (row 2): id: required (the --id-column)\n');
    expect(refused.stderr).toContain('line 1 (row 1): id "A-1" is used twice (also line 3, row 3)\n');
    expect(refused.stderr).toContain('line 3 (row 3): id "A-1" is used twice (also line 1, row 1)\n');
    expect(refused.stderr).toMatch(/^error: 3 invalid rows of 4; nothing was sent \(invalid_input\)$/m);
    expect(created().size).toBe(0);

    const skipping = await petctl(['pets', 'add', '--file', file, '--id-column', 'id', '--skip-invalid']);
    expect(skipping.code).toBe(6);
    expect(importSummary(skipping)).toMatchObject({ created: 1, invalid: 3 });
    expect(Object.fromEntries(created())).toEqual({ Cy: 1 });
  });

  it('--new stopped by Ctrl-C resumes with the same command: the rest of the new animals, not the old ones again', { timeout: 60_000 }, async (t) => {
    const dir = tempDir();
    const dataFile = path.join(dir, 'sandbox-data.json');
    let posts = 0;
    const sandbox = await startSandbox({ port: 0, dataFile, log: (line) => void (line.startsWith('POST') && (posts += 1)) });
    t.onTestFinished(() => sandbox.close());
    const litter = 200;
    const file = path.join(dir, 'litter.csv');
    fs.writeFileSync(file, ['name,categoryId', ...Array.from({ length: litter }, () => 'Kitten,3')].join('\n'));
    const run = (extra: string[], onSpawn?: (child: import('node:child_process').ChildProcess) => void) =>
      runCli(['--base-url', sandbox.baseUrl, 'pets', 'add', '--file', file, '--concurrency', '1', ...extra], { env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-enterprise' }, onSpawn, timeoutMs: 60_000 });
    const kittens = () => storedPets(dataFile).filter((pet) => pet.name === 'Kitten').length;

    expect((await run([])).code).toBe(0);
    const start = posts;
    const stopped = await run(['--new'], (child) => {
      const poll = setInterval(() => {
        if (posts - start < 20 && child.exitCode === null) return;
        clearInterval(poll);
        child.kill('SIGINT');
      }, 2);
    });
    // After its cleanup petctl ends by SIGINT itself, so a shell sees 130 and stops a loop.
    expect(stopped, stopped.stderr).toMatchObject({ code: null, signal: 'SIGINT' });
    const createdBeforeStop = kittens() - litter;
    expect(createdBeforeStop).toBeGreaterThan(0);
    expect(createdBeforeStop).toBeLessThan(litter);

    const resumed = await run(['--new']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(importSummary(resumed)).toMatchObject({ created: litter - createdBeforeStop, skipped: createdBeforeStop });
    expect(resumed.stderr).toContain('this --new import resumes the one that did not finish');
    expect(kittens()).toBe(2 * litter);
  });
});
