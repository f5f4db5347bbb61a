import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, runCli, tempDir } from '../helpers/cli';
import { storedPets } from '../helpers/sandbox-data';
import { shelter } from '../helpers/shelter';
import { startSandbox } from '../../src/sandbox/server';

/**
 * A shelter reruns its imports against the sandbox (real HTTP, a real data file): edited files,
 * --id-column, --new, standard input. What counts is what the data file holds afterwards.
 */

const SUMMARY = /^created (\d+), skipped (\d+), rejected (\d+), invalid (\d+), unknown (\d+) in /m;

function summary(result: CliResult) {
  const match = SUMMARY.exec(result.stderr);
  expect(match, result.stderr).not.toBeNull();
  const [, created, skipped, rejected, invalid, unknown] = match!.map(Number);
  return { created, skipped, rejected, invalid, unknown };
}

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
    try {
      const petctl = (args: string[]) => runCli(['pets', 'add', '--file', 'intake.csv', ...flags, ...args], { cwd: dir, env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-enterprise' }, timeoutMs: 60_000 });
      const ignoring = `ignoring columns: ${ignored}\n`;
      fs.writeFileSync(path.join(dir, 'intake.csv'), [header, ...numbers(1, 150).map((n) => (n === 77 ? animal(n, 'x') : animal(n)))].join('\n'));

      const first = await petctl(['--skip-invalid']);
      expect(first.code).toBe(6);
      expect(first.stderr).toContain('line 78 (row 77): categoryId must be a whole number, not "x"\n');
      expect(first.stderr.split(ignoring)).toHaveLength(2);
      expect(summary(first)).toMatchObject({ created: 149, skipped: 0, invalid: 1 });

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
      expect(summary(rerun)).toMatchObject({ created: 3, skipped: 149, rejected: 0, invalid: 0, unknown: 0 });
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
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe.concurrent('rerunning an import after editing the file', () => {
  it('without --id-column: fixing a bad row, appending, reordering and deleting rows sends only the rows not created before', async (t) => {
    const { petctl, write, created } = await shelter(t);
    const rows = Array.from({ length: 6 }, (_, i) => `Max ${i + 1},1,available`);
    const file = write('intake.csv', ['name,categoryId,status', ...rows.slice(0, 3), 'Bad,x,available', ...rows.slice(3)].join('\n'));

    const first = await petctl(['pets', 'add', '--file', file, '--skip-invalid']);
    expect(first.code).toBe(6);
    expect(first.stderr).toContain('line 5 (row 4): categoryId must be a whole number, not "x"\n');
    expect(summary(first)).toMatchObject({ created: 6, skipped: 0, invalid: 1 });

    // Fix the bad row, delete Max 2, move Max 6 to the top, append two new animals.
    write('intake.csv', ['name,categoryId,status', 'Max 6,1,available', 'Max 1,1,available', 'Max 3,1,available', 'Bad,2,available', 'Max 4,1,available', 'Max 5,1,available', 'New 1,3,', 'New 2,3,'].join('\n'));
    const dry = await petctl(['pets', 'add', '--file', file, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^would send 3 of 8 rows: 5 already created, 0 with an unknown outcome, 0 invalid; journal /);
    expect(dry.stderr).toMatch(SKIPPED_LINE(5, file));

    const second = await petctl(['pets', 'add', '--file', file, '-o', 'ndjson']);
    expect(second.code, second.stderr).toBe(0);
    expect(summary(second)).toMatchObject({ created: 3, skipped: 5, invalid: 0 });
    expect(second.stderr).toMatch(SKIPPED_LINE(5, file));
    const skipped = second.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((row) => row.skipped);
    expect(skipped).toHaveLength(5);
    expect(skipped[0]).toEqual({ row: 1, line: 2, ok: true, skipped: 'already_created', pet: expect.objectContaining({ name: 'Max 6' }), at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    expect(Object.fromEntries(created())).toEqual({ 'Max 1': 1, 'Max 2': 1, 'Max 3': 1, 'Max 4': 1, 'Max 5': 1, 'Max 6': 1, Bad: 1, 'New 1': 1, 'New 2': 1 });

    // Nothing at all to send: said even with -q.
    const quiet = await petctl(['-q', 'pets', 'add', '--file', file]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toMatch(SKIPPED_LINE(8, file));
  });

  it('--new sends every row again, however it was created before', async (t) => {
    const { petctl, write, created } = await shelter(t);
    const file = write('litter.ndjson', '{"name":"Kitten","categoryId":3}\n{"name":"Kitten","categoryId":3}\n');
    expect(summary(await petctl(['pets', 'add', '--file', file]))).toMatchObject({ created: 2 });
    const skipped = await petctl(['pets', 'add', '--file', file]);
    expect(skipped.stderr).toMatch(SKIPPED_LINE(2, file));

    const fresh = await petctl(['pets', 'add', '--file', file, '--new']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(summary(fresh)).toMatchObject({ created: 2, skipped: 0 });
    expect(fresh.stderr).not.toContain('already created');
    const again = await petctl(['pets', 'add', '--file', file, '--new']);
    expect(summary(again)).toMatchObject({ created: 2, skipped: 0 });
    expect(created().get('Kitten')).toBe(6);
  });

  it('--new stopped by Ctrl-C resumes with the same command: the rest of the new animals, not the old ones again', async (t) => {
    const dir = tempDir();
    const dataFile = path.join(dir, 'sandbox-data.json');
    let posts = 0;
    const sandbox = await startSandbox({ port: 0, dataFile, log: (line) => void (line.startsWith('POST') && (posts += 1)) });
    t.onTestFinished(async () => {
      await sandbox.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
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
    expect(summary(resumed)).toMatchObject({ created: litter - createdBeforeStop, skipped: createdBeforeStop });
    expect(resumed.stderr).toContain('this --new import resumes the one that did not finish');
    expect(kittens()).toBe(2 * litter);
  }, 60_000);

  it('columns that are not sent are ignored and named once on stderr; the bodies hold the three fields only', async (t) => {
    const { petctl, write, dataFile, seeded } = await shelter(t);
    const file = write('export.csv', 'Breed,name,Notes,categoryId,status\nLab,Rex,"good, calm",1,available\nPug,Bo,,2,\n');
    const result = await petctl(['pets', 'add', '--file', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.match(/ignoring columns: Breed, Notes\n/g)).toHaveLength(1);
    expect(storedPets(dataFile).slice(seeded).map(({ id: _id, ...pet }) => pet)).toEqual([
      { name: 'Rex', categoryId: 1, status: 'available' },
      { name: 'Bo', categoryId: 2 },
    ]);
  });
});

describe.concurrent('--id-column: the shelter\'s own id', () => {
  it('next week\'s export repeats some animals: only the new ids are sent, from any file; the id is never sent', async (t) => {
    const { petctl, write, created, dataFile } = await shelter(t);
    const week1 = write('week1.csv', 'Intake,name,categoryId,status\nA-1,Rex,1,available\nA-2,Bella,2,available\nA-3,Tom,x,\n');
    const first = await petctl(['pets', 'add', '--file', week1, '--id-column', 'intake', '--skip-invalid']);
    expect(first.code).toBe(6);
    expect(summary(first)).toMatchObject({ created: 2, invalid: 1 });

    // The bad row fixed: only it is sent.
    write('week1.csv', 'Intake,name,categoryId,status\nA-1,Rex,1,available\nA-2,Bella,2,available\nA-3,Tom,2,\n');
    const fixed = await petctl(['pets', 'add', '--file', week1, '--id-column', 'intake']);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(summary(fixed)).toMatchObject({ created: 1, skipped: 2 });

    // Next week's export, another file, reordered, repeats.
    const week2 = write('week2.csv', 'Intake,name,categoryId,status\nA-4,Nemo,3,available\nA-3,Tom,2,\nA-2,Bella,2,available\nA-5,Luna,2,pending\n');
    const next = await petctl(['pets', 'add', '--file', week2, '--id-column', 'Intake']);
    expect(next.code, next.stderr).toBe(0);
    expect(summary(next)).toMatchObject({ created: 2, skipped: 2 });
    expect(next.stderr).toMatch(SKIPPED_LINE(2, week1));
    expect(Object.fromEntries(created())).toEqual({ Rex: 1, Bella: 1, Tom: 1, Nemo: 1, Luna: 1 });
    expect(fs.readFileSync(dataFile, 'utf8')).not.toContain('A-4');
  });

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
    expect(summary(second)).toMatchObject({ created: 0, skipped: 2 });
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
    expect(summary(skipping)).toMatchObject({ created: 1, invalid: 3 });
    expect(Object.fromEntries(created())).toEqual({ Cy: 1 });
  });
});
