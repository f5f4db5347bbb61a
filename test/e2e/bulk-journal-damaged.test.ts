import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, expectCleanError, jsonError, setupE2e } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';

/**
 * A journal damaged as a crashed disk leaves it: the rerun and --dry-run send nothing (journal_damaged,
 * exit 1). A torn last line, what a kill mid-write leaves, is the one damage a rerun reads past.
 */

const ROWS = ['Rex', 'Bella', 'Max', 'Luna', 'Oliver', 'Milo'];
const SUMMARY = /^created (\d+), skipped (\d+), rejected 0, invalid 0, unknown 0 in .+; journal (.+)$/m;

/** The lines of `file` (1-based, as the error counts them) from `from` to `to` replaced by as many zero bytes, newlines included. */
function zeroFill(file: string, from: number, to: number): void {
  const bytes = fs.readFileSync(file);
  const starts = [0];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) starts.push(i + 1);
  bytes.fill(0, starts[from - 1], starts[to]);
  fs.writeFileSync(file, bytes);
}

const DAMAGE: Array<{ how: string; line: number; damage: (journal: string) => void }> = [
  { how: 'lines 4-7 zero-filled (a crashed disk)', line: 4, damage: (journal) => zeroFill(journal, 4, 7) },
];

async function imported(t: Parameters<typeof setupE2e>[0]) {
  const setup = await setupE2e(t, creator());
  const file = path.join(setup.configDir, 'intake.csv');
  fs.writeFileSync(file, `name,categoryId\n${ROWS.map((name) => `${name},1`).join('\n')}\n`);
  const first = await setup.petctl(['pets', 'add', '--file', file]);
  expect(first.code, first.stderr).toBe(0);
  const journal = SUMMARY.exec(first.stderr)![3]!;
  expect(fs.readFileSync(journal, 'utf8').split('\n').filter((line) => line !== '')).toHaveLength(1 + 2 * ROWS.length);
  expect(setup.server.requests).toHaveLength(ROWS.length);
  return { ...setup, file, journal };
}

function expectDamaged(result: CliResult, journal: string, line: number): void {
  expect(result.code, result.stderr).toBe(1);
  expectCleanError(result);
  expect(result.stderr.split('\n')[0]).toBe(
    `error: the journal ${journal} is damaged at line ${line}; rows it recorded may be sent twice. Move it aside and rerun with --new only if you know which animals exist (journal_damaged)`,
  );
}

// Every other shape of damage (a line typed over, JSON that is no entry, a damaged header, all zeros)
// is read at its seam: test/bulk/journal.test.ts.
describe.concurrent('a damaged journal stops the import before anything is sent', () => {
  it.for(DAMAGE)('$how: the rerun and --dry-run send nothing, say journal_damaged at line $line, exit 1', async ({ line, damage }, t) => {
    const { server, petctl, file, journal } = await imported(t);
    damage(journal);
    const damaged = fs.readFileSync(journal);

    expectDamaged(await petctl(['pets', 'add', '--file', file, '--dry-run']), journal, line);
    expectDamaged(await petctl(['pets', 'add', '--file', file]), journal, line);
    const json = await petctl(['pets', 'add', '--file', file, '-o', 'json']);
    expect(json.code).toBe(1);
    expect(jsonError(json)).toMatchObject({ code: 'journal_damaged', status: 0 });

    expect(server.requests).toHaveLength(ROWS.length);
    // Left as it was found, for the user to look at.
    expect(fs.readFileSync(journal).equals(damaged)).toBe(true);
  });

  it('moved aside, --new sends every row again into a fresh journal, as the message says', async (t) => {
    const { server, petctl, file, journal } = await imported(t);
    zeroFill(journal, 4, 7);
    fs.renameSync(journal, `${journal}.damaged`);

    const fresh = await petctl(['pets', 'add', '--file', file, '--new']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(SUMMARY.exec(fresh.stderr)?.slice(1, 3)).toEqual([String(ROWS.length), '0']);
    expect(server.requests).toHaveLength(2 * ROWS.length);
  });
});

describe.concurrent('a torn last line (a process killed mid-write) is read past', () => {
  it.for([
    { how: 'the start of an entry', tail: '{"source":"/in/intake.csv","content":["Rex","1","",1],"state":"crea', inTheMiddle: true },
    { how: 'zeros a machine crash left before the write was synced', tail: '\0'.repeat(300), inTheMiddle: false },
  ])('$how: the rerun skips every row created and sends the rest, once', async ({ tail, inTheMiddle }, t) => {
    const { server, petctl, file, journal } = await imported(t);
    fs.appendFileSync(journal, tail);
    fs.appendFileSync(file, 'Kiwi,1\n');

    const dry = await petctl(['pets', 'add', '--file', file, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^would send 1 of ${ROWS.length + 1} rows: ${ROWS.length} already created`));
    const rerun = await petctl(['pets', 'add', '--file', file]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(SUMMARY.exec(rerun.stderr)?.slice(1, 3)).toEqual(['1', String(ROWS.length)]);
    expect(server.requests.map((request) => (JSON.parse(request.body) as { name: string }).name)).toEqual(expect.arrayContaining([...ROWS, 'Kiwi']));
    expect(server.requests).toHaveLength(ROWS.length + 1);

    if (!inTheMiddle) return;
    // The torn line is now in the middle, followed by this run's entries: the next rerun still reads past it.
    const again = await petctl(['pets', 'add', '--file', file]);
    expect(again.code, again.stderr).toBe(0);
    expect(server.requests).toHaveLength(ROWS.length + 1);
  });
});
