import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, describe, expect, it } from 'vitest';
import { type CliResult, runCli, tempDir } from '../helpers/cli';
import { storedPets } from '../helpers/sandbox-data';
import { fill, mountSmallDisk, noSmallDisk, unfill, unmountSmallDisk } from '../helpers/small-disk';
import { startSandbox } from '../../src/sandbox/server';
import { rowsFile } from '../helpers/import-run';

/**
 * A journal or state.json that cannot be written mid-import (a small tmpfs filled under it: root writes past
 * permissions, not past a full disk), or a journal whose folder is removed.
 */

const ESCAPE = /[.*+?^${}()|[\]\\]/g;

/** The sandbox (its data file in `dir`), petctl importing `rows` rows into it, and what each POST does first. */
async function importInto(t: Pick<TestContext, 'onTestFinished'>, dir: string, rows: number, configDir: string, flags: string[], onPost: (posts: number) => void) {
  const dataFile = path.join(dir, 'sandbox-data.json');
  let posts = 0;
  const sandbox = await startSandbox({ port: 0, dataFile, log: (line) => void (line.startsWith('POST') && onPost(++posts)) });
  t.onTestFinished(() => sandbox.close());
  const seeded = storedPets(dataFile).length;
  const input = rowsFile(dir, 'intake.ndjson', rows, 'Pet ');
  const env = { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: 'sandbox-enterprise' };
  const run = () => runCli(['--base-url', sandbox.baseUrl, 'pets', 'add', '--file', input, ...flags], { env, timeoutMs: 60_000 });
  const created = () => storedPets(dataFile).slice(seeded).map((pet) => pet.name);
  return { run, created };
}

/** One error line: the stop, with how many rows this run created and how many it did not send (its words:
 * test/output/import-end.test.ts); the summary agrees. */
function expectStopped(first: CliResult, createdFirst: number, rows: number, error: string): void {
  expect(first.code, first.stderr).toBe(1);
  expect(first.stderr).not.toMatch(/unexpected failure|internal_error|    at /);
  const counts = `${createdFirst} rows created by this run, ${rows - createdFirst} rows not sent yet`;
  const stopped = new RegExp(`^error: ${error}; [^:]+: ${counts}\\. .* \\((state|journal)_unwritable\\)$`);
  expect(first.stderr.split('\n').filter((line) => line.startsWith('error: '))).toEqual([expect.stringMatching(stopped)]);
  expect(first.stderr).toMatch(new RegExp(`^created ${createdFirst}, skipped 0, `, 'm'));
}

function expectResumed(second: CliResult, created: string[], createdFirst: number, rows: number): void {
  expect(second.code, second.stderr).toBe(0);
  expect(second.stderr).toMatch(new RegExp(`^created ${rows - createdFirst}, skipped ${createdFirst}, rejected 0, invalid 0, unknown 0 in `, 'm'));
  expect(created).toHaveLength(rows);
  expect(new Set(created).size).toBe(rows);
}

describe.skipIf(noSmallDisk)('a full disk under a running import', () => {
  it.for([
    { on: 'the journal', configOnDisk: false, journal: 'imports/journal.ndjson', file: 'imports/journal\\.ndjson', said: 'journal' },
    { on: 'the config directory, the journal elsewhere', configOnDisk: true, journal: '../journal.ndjson', file: 'state\\.json', said: 'rate-limit state file' },
    {
      on: 'the config directory and the journal (the default)',
      configOnDisk: true,
      journal: undefined,
      file: '(state\\.json|imports/[0-9a-f]+\\.ndjson)',
      said: '(rate-limit state file|journal)',
    },
  ])('$on: stops before another request, names the file, the reason and what was created; the rerun creates every row once', { timeout: 90_000 }, async ({ configOnDisk, journal, file, said }, t) => {
    const dir = tempDir();
    const disk = path.join(dir, 'small-disk');
    expect(mountSmallDisk(disk, '1m')).toBe(true);
    t.onTestFinished(() => unmountSmallDisk(disk));
    const configDir = configOnDisk ? disk : path.join(dir, 'config');
    const journalFlags = journal === undefined ? [] : ['--journal', path.join(disk, journal)];
    // The journal's spare room: once seen, and gone, it was freed.
    let spareSeen = false;
    const spareFreed = () => {
      const imports = path.join(disk, 'imports');
      const present = fs.existsSync(imports) && fs.readdirSync(imports).some((name) => name.endsWith('.spare'));
      spareSeen ||= present;
      return spareSeen && !present;
    };
    let filling = true;
    const rows = 100;
    // Filled at each POST from the 20th (a rename in flight frees room), but not once the journal freed its spare
    // room: that room is for the answers on the wire.
    const { run, created } = await importInto(t, dir, rows, configDir, journalFlags, (posts) => void (filling && posts >= 20 && !spareFreed() && fill(disk)));

    const first = await run();
    const createdFirst = created().length;
    expect(createdFirst).toBeGreaterThanOrEqual(20);
    expect(createdFirst).toBeLessThan(rows);
    expectStopped(first, createdFirst, rows, `cannot write the ${said} ${disk.replace(ESCAPE, '\\$&')}/${file}: no space left on the device \\(ENOSPC\\)`);

    filling = false;
    unfill(disk);
    expectResumed(await run(), created(), createdFirst, rows);
  });
});

it('a journal whose folder is removed during the import: stops before another request, writes the journal again whole; the rerun creates every row once', { timeout: 60_000 }, async (t) => {
  const dir = tempDir();
  const journal = path.join(dir, 'journals', 'journal.ndjson');
  const rows = 120;
  const removeFolder = (posts: number) => void (posts === 30 && fs.rmSync(path.dirname(journal), { recursive: true, force: true }));
  const { run, created } = await importInto(t, dir, rows, dir, ['--journal', journal], removeFolder);

  const first = await run();
  const createdFirst = created().length;
  expect(createdFirst).toBeLessThan(rows);
  expectStopped(first, createdFirst, rows, `the journal ${journal.replace(ESCAPE, '\\$&')} was deleted while the import ran; it was written again with every row on record`);
  expectResumed(await run(), created(), createdFirst, rows);
});
