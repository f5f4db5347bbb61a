import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCleanError, jsonError, setupE2e } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';
import { importSummary } from '../helpers/import-run';

/**
 * A journal damaged as a crashed disk leaves it: the rerun and --dry-run send nothing (journal_damaged, exit 1).
 * Every other shape of damage (a line typed over, JSON that is no entry, a damaged header, all zeros), and the
 * torn last line a rerun reads past: test/bulk/journal.test.ts; a kill mid-write: bulk-interrupt.test.ts.
 */

const ROWS = ['Rex', 'Bella', 'Max', 'Luna', 'Oliver', 'Milo'];

async function imported(t: Parameters<typeof setupE2e>[0]) {
  const setup = await setupE2e(t, creator());
  const file = path.join(setup.configDir, 'intake.csv');
  fs.writeFileSync(file, `name,categoryId\n${ROWS.map((name) => `${name},1`).join('\n')}\n`);
  const first = await setup.petctl(['pets', 'add', '--file', file]);
  expect(first.code, first.stderr).toBe(0);
  return { ...setup, file, journal: importSummary(first).journal };
}

describe('a damaged journal', () => {
  it('lines 4-7 zero-filled (a crashed disk): the rerun and --dry-run send nothing, say journal_damaged at line 4, exit 1, and leave it; moved aside, --new sends every row again', async (t) => {
    const { server, petctl, file, journal } = await imported(t);
    // The lines of the header and six rows' "sent" and "created" entries; 4 to 7 become as many zero bytes.
    const bytes = fs.readFileSync(journal);
    const starts = [0];
    for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) starts.push(i + 1);
    expect(starts).toHaveLength(2 + 2 * ROWS.length);
    fs.writeFileSync(journal, bytes.fill(0, starts[3], starts[7]));
    const damaged = fs.readFileSync(journal);

    const message = `error: the journal ${journal} is damaged at line 4; rows it recorded may be sent twice. Move it aside and rerun with --new only if you know which animals exist (journal_damaged)`;
    for (const flags of [['--dry-run'], []]) {
      const result = await petctl(['pets', 'add', '--file', file, ...flags]);
      expect(result.code, result.stderr).toBe(1);
      expectCleanError(result);
      expect(result.stderr.split('\n')[0]).toBe(message);
    }
    const json = await petctl(['pets', 'add', '--file', file, '-o', 'json']);
    expect(json.code).toBe(1);
    expect(jsonError(json)).toMatchObject({ code: 'journal_damaged', status: 0 });
    expect(server.requests).toHaveLength(ROWS.length);
    expect(fs.readFileSync(journal).equals(damaged)).toBe(true);

    fs.renameSync(journal, `${journal}.damaged`);
    const fresh = await petctl(['pets', 'add', '--file', file, '--new']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(importSummary(fresh)).toMatchObject({ created: ROWS.length, skipped: 0 });
    expect(server.requests).toHaveLength(2 * ROWS.length);
  });
});
