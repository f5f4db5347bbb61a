import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server';
import { type CliResult, jsonError, ok, runCli, setupE2e, tempDir, writeInput } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';
import { storedPets } from '../helpers/sandbox-data';
import { openTerminal } from '../helpers/tmux';

/**
 * One import at a time per journal, real processes on one file: every row created once; each run ends 0,
 * or 1 with journal_busy when its --max-wait ran out. The lock's rules: test/bulk/journal-lock.test.ts; what each line
 * says (every holder, --max-wait, on a terminal or not, -v, -q): test/output/import-end.test.ts.
 */

const SUMMARY = /^created (\d+), skipped (\d+), rejected 0, invalid 0, unknown 0 in /m;
const WAITING = 'waiting for another import of';

/** A run ended well, or was refused before sending anything because the other held the journal. */
function expectDoneOrBusy(result: CliResult): number {
  expect(result.stderr).not.toMatch(/internal_error|outcome_unknown|unexpected failure|    at /);
  if (result.code === 1) {
    // In a crowd the lock may change hands before its holder is asked: then the refusal names nobody.
    expect(result.stderr).toMatch(/^error: the journal .+ is in use by another import( \(pid \d+, rows\.csv\))?, which did not finish within --max-wait 1s; nothing sent \(journal_busy\)$/m);
    return 0;
  }
  expect(result.code, result.stderr).toBe(0);
  const match = SUMMARY.exec(result.stderr);
  expect(match, result.stderr).not.toBeNull();
  return Number(match![1]);
}

function csv(rows: number): string {
  return ['Intake No,name,categoryId', ...Array.from({ length: rows }, (_, i) => `A-${i + 1},Max ${i + 1},1`)].join('\n');
}

it.concurrent.for([
  { story: 'twins of 100 rows both end 0, the second skipping what the first created', processes: 2, rows: 100, globals: [], flags: [] },
  {
    story: 'triplets of 30 rows with --id-column and --max-wait 1 each end 0 or journal_busy',
    processes: 3,
    rows: 30,
    globals: ['--max-wait', '1'],
    flags: ['--id-column', 'Intake No'],
  },
])('imports of one file at the same time, on the sandbox (the Enterprise key: no waiting): $story; every row created exactly once; off a terminal, without -v, the wait is silent', async ({ processes, rows, globals, flags }, t) => {
  const dir = tempDir();
  const dataFile = path.join(dir, 'sandbox-data.json');
  const sandbox = await startSandbox({ port: 0, dataFile });
  t.onTestFinished(() => sandbox.close());
  const seeded = storedPets(dataFile).length;
  const file = writeInput(dir, 'rows.csv', csv(rows));
  const args = ['--base-url', sandbox.baseUrl, ...globals, 'pets', 'add', '--file', file, ...flags];
  const env = { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-enterprise' };
  const runs = await Promise.all(Array.from({ length: processes }, () => runCli(args, { env })));
  expect(runs.map(expectDoneOrBusy).reduce((a, b) => a + b, 0)).toBe(rows);
  if (processes === 2) expect(runs.map((run) => run.code)).toEqual([0, 0]);
  for (const run of runs) expect(run.stderr).not.toContain(WAITING);
  const names = storedPets(dataFile).slice(seeded).map((pet) => pet.name);
  expect(names.sort()).toEqual(Array.from({ length: rows }, (_, i) => `Max ${i + 1}`).sort());
});

// Waiting for the holder off a terminal (-v says once whom it waits for), up to --max-wait: test/bulk/journal-lock.test.ts.
it('a journal another import holds (its first answer held until the test lets it go): --max-wait 0: journal_busy, exit 1, naming the journal, the pid and the file, nothing sent, with -o json one JSON line; --dry-run does not wait: it says the journal is in use and shows its figures as they stand; Ctrl-C while waiting: the usual interrupted exit, nothing sent; on a terminal the waiting import says once whom it waits for, then goes on when the other finishes', async (t) => {
  const { server, configDir, key, petctl } = await setupE2e(t, creator());
  let answer = () => {};
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const create = creator({ firstId: 1 });
  server.reply((request, res) => void answered.then(() => create(request, res)));
  fs.writeFileSync(path.join(configDir, 'rows.csv'), csv(3));
  let holderPid = 0;
  const holder = petctl(['pets', 'add', '--file', 'rows.csv', '--concurrency', '1'], { cwd: configDir, onSpawn: (child) => (holderPid = child.pid!) });
  await server.received(1);
  const imports = path.join(configDir, 'imports');
  const journal = path.join(imports, fs.readdirSync(imports).find((name) => name.endsWith('.ndjson'))!);
  const inUse = `the journal ${journal} is in use by another import (pid ${holderPid}, rows.csv); nothing sent`;

  const busy = await petctl(['--max-wait', '0', 'pets', 'add', '--file', 'rows.csv'], { cwd: configDir });
  expect(busy).toMatchObject({ code: 1, stdout: '' });
  expect(busy.stderr.split('\nhint: ')[0]).toBe(`error: ${inUse} (journal_busy)`);
  const json = await petctl(['--max-wait', '0', '-o', 'json', 'pets', 'add', '--file', 'rows.csv'], { cwd: configDir });
  expect(json.code).toBe(1);
  expect(jsonError(json)).toEqual({ code: 'journal_busy', message: inUse, status: 0 });

  // The default --max-wait is 60 s: a dry run that waited would outlast the holder's test.
  const dry = await ok(petctl(['pets', 'add', '--file', 'rows.csv', '--dry-run'], { cwd: configDir }));
  expect(dry.stderr).toContain(`warning: the journal ${journal} is in use by another import of rows.csv (pid ${holderPid}): these figures may change when it finishes\n`);
  expect(dry.stdout).toMatch(/^would send 2 of 3 rows: 0 already created, 1 with an unknown outcome, 0 invalid; /);

  const waiting = `petctl: waiting for another import of rows.csv (pid ${holderPid}) to finish`;
  const stopped = await petctl(['-v', 'pets', 'add', '--file', 'rows.csv'], {
    cwd: configDir,
    onSpawn: (child) => child.stderr!.on('data', (chunk: string) => void (chunk.includes(WAITING) && child.kill('SIGINT'))),
  });
  expect(stopped).toMatchObject({ code: null, signal: 'SIGINT' });
  expect(stopped.stderr).toContain(waiting);
  expect(server.requests).toHaveLength(1);

  const tty = openTerminal(t, ['--base-url', server.baseUrl, 'pets', 'add', '--file', path.join(configDir, 'rows.csv')], { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }, { width: 120 });
  await tty.waitFor(new RegExp(`petctl: waiting for another import of rows\\.csv \\(pid ${holderPid}\\) to finish`));
  answer();
  expect((await holder).code).toBe(0);
  expect(await tty.exitCode(20_000)).toBe(0);
  expect(tty.text().split(WAITING)).toHaveLength(2);
  expect(tty.text()).toMatch(/created 0, skipped 3, /);
  expect(server.requests).toHaveLength(3);
});
