import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, runCli, tempDir } from '../helpers/cli';
import { storedPets } from '../helpers/sandbox-data';
import { fill, mountSmallDisk, noSmallDisk, unfill, unmountSmallDisk } from '../helpers/small-disk';
import { startSandbox } from '../../src/sandbox/server';
import { rowsFile } from '../helpers/import-run';

/**
 * A journal on a small tmpfs that fills up mid-import (root writes past permissions, not past a full
 * disk): journal_unwritable before another request, and a rerun creates every row once. Needs root.
 */

/** The rerun sent exactly the rows the first run had not created, and the sandbox holds every row once. */
function expectResumed(second: CliResult, at: { rows: number; createdFirst: number; dataFile: string; seeded: number }): void {
  expect(second.code, second.stderr).toBe(0);
  expect(second.stderr).toMatch(new RegExp(`^created ${at.rows - at.createdFirst}, skipped ${at.createdFirst}, rejected 0, invalid 0, unknown 0 in `, 'm'));
  const names = storedPets(at.dataFile).slice(at.seeded).map((pet) => pet.name);
  expect(names).toHaveLength(at.rows);
  expect(new Set(names).size).toBe(at.rows);
}

describe.skipIf(noSmallDisk)('a journal that cannot be written (a full disk)', () => {
  it('stops the import before another request, says which file, why, how many were created and that a rerun resumes; the rerun creates every row once', async (t) => {
    const dir = tempDir();
    const disk = path.join(dir, 'small-disk');
    expect(mountSmallDisk(disk, '1m')).toBe(true);
    const dataFile = path.join(dir, 'sandbox-data.json');
    let posts = 0;
    let filled = false;
    const sandbox = await startSandbox({
      port: 0,
      dataFile,
      log: (line) => {
        if (!line.startsWith('POST')) return;
        posts += 1;
        // Mid-import: the disk fills up under the running import.
        if (posts === 40 && !filled) {
          filled = true;
          fill(disk);
        }
      },
    });
    t.onTestFinished(async () => {
      await sandbox.close();
      unmountSmallDisk(disk);
    });
    const seeded = storedPets(dataFile).length;
    const rows = 150;
    const file = rowsFile(dir, 'intake.ndjson', rows, 'Pet ');
    const journal = path.join(disk, 'imports', 'journal.ndjson');
    const run = () =>
      runCli(['--base-url', sandbox.baseUrl, 'pets', 'add', '--file', file, '--journal', journal], {
        env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-enterprise' },
        timeoutMs: 60_000,
      });

    const first = await run();
    expect(filled).toBe(true);
    expect(first.code, first.stderr).toBe(1);
    const createdFirst = storedPets(dataFile).length - seeded;
    expect(createdFirst).toBeGreaterThanOrEqual(40);
    expect(createdFirst).toBeLessThan(rows);
    const error = first.stderr.trim().split('\n').filter((line) => line.startsWith('error: '));
    expect(error).toHaveLength(1);
    expect(error[0]).toContain(`cannot write the journal ${journal}: no space left on the device (ENOSPC)`);
    expect(error[0]).toMatch(/the import stopped before sending another request: \d+ rows created by this run, \d+ rows not sent yet/);
    expect(error[0]).toContain('a rerun of the same command resumes');
    expect(error[0]).toMatch(/\(journal_unwritable\)$/);
    expect(first.stderr).not.toMatch(/unexpected failure|internal_error/);
    // The rows it created are all it reported: at most the requests already on the wire went after the failure.
    const reported = Number(/created (\d+), skipped/.exec(first.stderr)![1]);
    expect(reported).toBe(createdFirst);

    // The cause fixed: room again.
    unfill(disk);
    expectResumed(await run(), { rows, createdFirst, dataFile, seeded });
  }, 90_000);
});

describe('a journal whose directory is removed during the import', () => {
  it('stops before another request, writes the journal again whole, and the rerun creates every row once', async (t) => {
    const dir = tempDir();
    const dataFile = path.join(dir, 'sandbox-data.json');
    const journalDir = path.join(dir, 'journals');
    let posts = 0;
    const sandbox = await startSandbox({
      port: 0,
      dataFile,
      log: (line) => {
        if (line.startsWith('POST') && ++posts === 30) fs.rmSync(journalDir, { recursive: true, force: true });
      },
    });
    t.onTestFinished(() => sandbox.close());
    const seeded = storedPets(dataFile).length;
    const rows = 120;
    const file = rowsFile(dir, 'intake.ndjson', rows, 'Pet ');
    const journal = path.join(journalDir, 'journal.ndjson');
    const run = () =>
      runCli(['--base-url', sandbox.baseUrl, 'pets', 'add', '--file', file, '--journal', journal], { env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-enterprise' }, timeoutMs: 60_000 });

    const first = await run();
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toMatch(new RegExp(`^error: the journal ${journal.replace(/[.*+?^$()|[\]\\]/g, '\\$&')} was deleted while the import ran; it was written again with every row on record; the import stopped before sending another request: \\d+ rows created by this run, \\d+ rows not sent yet\\. Once the cause is fixed, a rerun of the same command resumes \\(journal_unwritable\\)$`, 'm'));
    const createdFirst = storedPets(dataFile).length - seeded;
    expect(createdFirst).toBeLessThan(rows);

    expectResumed(await run(), { rows, createdFirst, dataFile, seeded });
  }, 60_000);
});
