import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli';
import { storedPets } from '../helpers/sandbox-data';
import { fill, mountSmallDisk, noSmallDisk, unfill, unmountSmallDisk } from '../helpers/small-disk';
import { startSandbox } from '../../src/sandbox/server';
import { rowsFile } from '../helpers/import-run';

/**
 * A config directory on a small tmpfs filled mid-import: state.json cannot be written, so the import
 * stops before another request (state_unwritable, never internal_error) and a rerun creates every row once.
 */

const ESCAPE = /[.*+?^${}()|[\]\\]/g;

describe.skipIf(noSmallDisk)('the config directory on a full disk', () => {
  it.for([
    { where: 'the journal elsewhere', journalOnDisk: false, file: 'state.json' },
    { where: 'the journal there too (the default)', journalOnDisk: true, file: '(state.json|imports/[0-9a-f]+\\.ndjson)' },
  ])('$where: the import stops before another request, names the file, the reason and what was created; the rerun creates every row once', { timeout: 90_000 }, async ({ journalOnDisk, file }, t) => {
    const dir = tempDir();
    const configDir = path.join(dir, 'config');
    expect(mountSmallDisk(configDir, '1m')).toBe(true);
    const dataFile = path.join(dir, 'sandbox-data.json');
    let posts = 0;
    let filling = true;
    // The journal's spare room (journal.ts) on the small disk: once seen, and gone, it was freed.
    let spareSeen = false;
    const spareFreed = () => {
      const imports = path.join(configDir, 'imports');
      const present = fs.existsSync(imports) && fs.readdirSync(imports).some((name) => name.endsWith('.spare'));
      spareSeen ||= present;
      return spareSeen && !present;
    };
    const sandbox = await startSandbox({
      port: 0,
      dataFile,
      log: (line) => {
        // Mid-import: the disk fills up under the running import, and stays full (an atomic write
        // in flight at the first fill frees the old file's room when it renames). Not once the
        // journal has freed its spare room: that room is the journal's, for the answers on the wire.
        if (filling && line.startsWith('POST') && ++posts >= 20 && !spareFreed()) fill(configDir);
      },
    });
    t.onTestFinished(async () => {
      await sandbox.close();
      unmountSmallDisk(configDir);
    });
    const seeded = storedPets(dataFile).length;
    const rows = 100;
    const input = rowsFile(dir, 'intake.ndjson', rows, 'Pet ');
    const journal = journalOnDisk ? [] : ['--journal', path.join(dir, 'journal.ndjson')];
    const run = () =>
      runCli(['--base-url', sandbox.baseUrl, 'pets', 'add', '--file', input, ...journal], {
        env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: 'sandbox-enterprise' },
        timeoutMs: 60_000,
      });

    const first = await run();
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).not.toMatch(/unexpected failure|internal_error|    at /);
    const createdFirst = storedPets(dataFile).length - seeded;
    expect(createdFirst).toBeGreaterThanOrEqual(20);
    expect(createdFirst).toBeLessThan(rows);
    const errors = first.stderr.split('\n').filter((line) => line.startsWith('error: '));
    expect(errors).toHaveLength(1);
    const files = `${configDir.replace(ESCAPE, '\\$&')}/${file}`;
    expect(errors[0]).toMatch(
      new RegExp(
        `^error: cannot write the (rate-limit state file|journal) ${files}: no space left on the device \\(ENOSPC\\); ` +
          `the import stopped before sending another request: ${createdFirst} rows created by this run, ${rows - createdFirst} rows not sent yet\\. ` +
          'Once the cause is fixed, a rerun of the same command resumes \\((state|journal)_unwritable\\)$',
      ),
    );
    if (!journalOnDisk) expect(errors[0]).toMatch(/rate-limit state file .*\(state_unwritable\)$/);
    // Every animal the service created was reported as created, and is on record.
    expect(first.stderr).toMatch(new RegExp(`^created ${createdFirst}, skipped 0, `, 'm'));

    // The cause fixed: room again.
    filling = false;
    unfill(configDir);
    const second = await run();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(new RegExp(`^created ${rows - createdFirst}, skipped ${createdFirst}, rejected 0, invalid 0, unknown 0 in `, 'm'));
    const names = storedPets(dataFile).slice(seeded).map((pet) => pet.name);
    expect(names).toHaveLength(rows);
    expect(new Set(names).size).toBe(rows);
  });
});
