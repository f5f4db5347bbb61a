import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli';
import { storedPets } from '../helpers/sandbox-data';
import { shelter } from '../helpers/shelter';
import { startSandbox } from '../../src/sandbox/server';
import { importSummary, ndjsonRows } from '../helpers/import-run';

/**
 * A shelter reruns its imports against the sandbox (real HTTP, a real data file): an edited file with
 * --id-column, and --new stopped by Ctrl-C. What counts is what the data file holds afterwards. Which rows
 * a rerun matches (edited, reordered, from another file, without --id-column): test/bulk/journal.test.ts.
 */

describe.concurrent('rerunning an import after editing the file', () => {
  it('an export of 150 rows (row 77 invalid) on the built-in sandbox profile, fixed and two appended: the rerun sends only those three and says what it skipped', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    const header = 'Intake No,Name,categoryId,Status,Breed,Notes';
    const animal = (n: number, category = String(1 + (n % 3))) => `A-${1000 + n},Max ${n},${category},available,${['Labrador', 'Beagle', 'Tabby'][n % 3]},"calm, house-trained"`;
    const write = (last: number) => fs.writeFileSync(path.join(dir, 'intake.csv'), [header, ...Array.from({ length: last }, (_, i) => animal(i + 1, i === 76 && last === 150 ? 'x' : undefined))].join('\n'));
    // From its own directory, as typed; a new port each run: records go by the data file.
    const petctl = (args: string[]) =>
      runCli(['pets', 'add', '--file', 'intake.csv', '--id-column', 'Intake No', '--skip-invalid', ...args], { cwd: dir, env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-enterprise' }, timeoutMs: 60_000 });
    const skippedLine = /^skipped 149 rows already created from intake\.csv \(last import \d{4}-\d\d-\d\d \d\d:\d\d\); --new sends them again$/m;
    const saidOnce = (stderr: string) => expect(stderr.split('ignoring columns: Breed, Notes\n')).toHaveLength(2);

    write(150);
    const first = await petctl([]);
    expect(first.code).toBe(6);
    expect(first.stderr).toContain('line 78 (row 77): categoryId must be a whole number, not "x"\n');
    saidOnce(first.stderr);
    expect(importSummary(first)).toMatchObject({ created: 149, skipped: 0, invalid: 1 });

    write(152);
    const dry = await petctl(['--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^would send 3 of 152 rows: 149 already created, 0 with an unknown outcome, 0 invalid; journal /);
    expect(dry.stderr).toMatch(skippedLine);
    saidOnce(dry.stderr);

    const rerun = await petctl(['-o', 'ndjson']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(skippedLine);
    saidOnce(rerun.stderr);
    expect(importSummary(rerun)).toMatchObject({ created: 3, skipped: 149, rejected: 0, invalid: 0, unknown: 0 });
    const lines = ndjsonRows(rerun.stdout);
    expect(lines.filter((line) => !line.skipped).map((line) => line.pet!.name).sort()).toEqual(['Max 151', 'Max 152', 'Max 77']);
    // The shape the contract shows, in its order; "at" an ISO time.
    const skippedRow = lines.find((line) => line.row === 1)!;
    expect(Object.keys(skippedRow)).toEqual(['row', 'line', 'ok', 'skipped', 'pet', 'at']);
    expect(skippedRow).toEqual({ row: 1, line: 2, ok: true, skipped: 'already_created', pet: { id: expect.any(Number), name: 'Max 1', categoryId: 2, status: 'available' }, at: expect.any(String) });
    expect(new Date(skippedRow.at as string).toISOString()).toBe(skippedRow.at);

    const names = storedPets(path.join(dir, 'sandbox-data.json')).map((pet) => pet.name).filter((name) => name.startsWith('Max '));
    expect(names).toHaveLength(152);
    expect(new Set(names).size).toBe(152);
  });

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
