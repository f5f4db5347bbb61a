import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli';
import { storedPets } from '../helpers/sandbox-data';
import { shelter } from '../helpers/shelter';
import { startSandbox } from '../../src/sandbox/server';
import { importSummary } from '../helpers/import-run';

/**
 * A shelter reruns its imports against the sandbox (real HTTP, a real data file): edited files,
 * --id-column, --new, standard input. What counts is what the data file holds afterwards.
 */

const SKIPPED_LINE = (count: number, from: string) =>
  new RegExp(`^skipped ${count} rows? already created from ${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(last import \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\); --new sends them again$`, 'm');

/**
 * An export of 150 animals (row 77 invalid) imported with --skip-invalid from its own directory on the
 * built-in profile (a new port each run: records go by the data file); then fixed, appended to, rerun.
 */
describe.concurrent('the shelter\'s export of 150 rows, fixed and rerun, on the built-in sandbox profile', () => {
  const header = 'Intake No,Name,categoryId,Status,Breed,Notes';
  const animal = (n: number, category = String(1 + (n % 3))) => `A-${1000 + n},Max ${n},${category},available,${['Labrador', 'Beagle', 'Tabby'][n % 3]},"calm, house-trained"`;
  const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it.each([
    { how: 'without --id-column', flags: [] as string[], ignored: 'Intake No, Breed, Notes' },
    { how: 'with --id-column', flags: ['--id-column', 'Intake No'], ignored: 'Breed, Notes' },
  ])('$how: the rerun sends only the fixed row and the two new ones, and says what it skipped', async ({ flags, ignored }) => {
    const dir = tempDir();
    const petctl = (args: string[]) => runCli(['pets', 'add', '--file', 'intake.csv', ...flags, ...args], { cwd: dir, env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-enterprise' }, timeoutMs: 60_000 });
    const ignoring = `ignoring columns: ${ignored}\n`;
    fs.writeFileSync(path.join(dir, 'intake.csv'), [header, ...numbers(1, 150).map((n) => (n === 77 ? animal(n, 'x') : animal(n)))].join('\n'));

    const first = await petctl(['--skip-invalid']);
    expect(first.code).toBe(6);
    expect(first.stderr).toContain('line 78 (row 77): categoryId must be a whole number, not "x"\n');
    expect(first.stderr.split(ignoring)).toHaveLength(2);
    expect(importSummary(first)).toMatchObject({ created: 149, skipped: 0, invalid: 1 });

    fs.writeFileSync(path.join(dir, 'intake.csv'), [header, ...numbers(1, 152).map((n) => animal(n))].join('\n'));
    const dry = await petctl(['--skip-invalid', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^would send 3 of 152 rows: 149 already created, 0 with an unknown outcome, 0 invalid; journal /);
    expect(dry.stderr).toMatch(SKIPPED_LINE(149, 'intake.csv'));
    expect(dry.stderr.split(ignoring)).toHaveLength(2);

    const rerun = await petctl(['--skip-invalid', '-o', 'ndjson']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(SKIPPED_LINE(149, 'intake.csv'));
    expect(rerun.stderr.split(ignoring)).toHaveLength(2);
    expect(importSummary(rerun)).toMatchObject({ created: 3, skipped: 149, rejected: 0, invalid: 0, unknown: 0 });
    const lines = rerun.stdout.trim().split('\n').map((line) => JSON.parse(line) as { row: number; skipped?: string; pet: { name: string }; at?: string });
    expect(lines.filter((line) => !line.skipped).map((line) => line.pet.name).sort()).toEqual(['Max 151', 'Max 152', 'Max 77']);
    // The shape the contract shows, in its order; "at" an ISO time.
    const skippedRow = lines.find((line) => line.row === 1)!;
    expect(Object.keys(skippedRow)).toEqual(['row', 'line', 'ok', 'skipped', 'pet', 'at']);
    expect(skippedRow).toEqual({ row: 1, line: 2, ok: true, skipped: 'already_created', pet: { id: expect.any(Number), name: 'Max 1', categoryId: 2, status: 'available' }, at: expect.any(String) });
    expect(new Date(skippedRow.at!).toISOString()).toBe(skippedRow.at);

    const names = storedPets(path.join(dir, 'sandbox-data.json')).map((pet) => pet.name).filter((name) => name.startsWith('Max '));
    expect(names).toHaveLength(152);
    expect(new Set(names).size).toBe(152);
  }, 90_000);
});

// Which rows a rerun matches (edited, reordered, from another file, by --id-column) is test/bulk/journal.test.ts's.
describe.concurrent('rerunning an import after editing the file', () => {
  it('--new stopped by Ctrl-C resumes with the same command: the rest of the new animals, not the old ones again', async (t) => {
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
  }, 60_000);
});

describe.concurrent('--id-column: the shelter\'s own id', () => {
  it('a row whose other fields changed after its animal was created is skipped, and said once on stderr', async (t) => {
    const { petctl, write, created } = await shelter(t);
    const file = write('intake.csv', 'Intake,name,categoryId,status\nA-1,Rex,1,available\nA-2,Bella,2,available\n');
    const first = await petctl(['pets', 'add', '--file', file, '--id-column', 'Intake', '-o', 'json']);
    const rexId = (JSON.parse(first.stdout) as Array<{ pet: { id: number } }>)[0]!.pet.id;

    write('intake.csv', 'Intake,name,categoryId,status\nA-1,Rex,1,sold\nA-2,Bella,2,available\n');
    const second = await petctl(['pets', 'add', '--file', file, '--id-column', 'Intake']);
    expect(second.code, second.stderr).toBe(0);
    const said = new RegExp(`^line 2 \\(row 1\\): A-1 was created as ${rexId} on \\d{4}-\\d\\d-\\d\\d; it has changed since, and the service cannot update animals$`, 'gm');
    expect(second.stderr.match(said)).toHaveLength(1);
    expect(importSummary(second)).toMatchObject({ created: 0, skipped: 2 });
    expect(Object.fromEntries(created())).toEqual({ Rex: 1, Bella: 1 });
  });

  it('a row without an id, or with an id used twice, is invalid (exit 6 without --skip-invalid, nothing sent)', async (t) => {
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
});
