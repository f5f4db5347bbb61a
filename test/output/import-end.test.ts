import { describe, expect, it } from 'vitest';
import { JournalUnwritableError } from '../../src/bulk/journal';
import type { ImportEnding, ImportStop } from '../../src/bulk/outcome';
import type { Scan } from '../../src/bulk/records';
import { NetworkError, NotConfiguredError, type PetctlError, RateLimitError, StateUnwritableError } from '../../src/errors';
import { endingError, importReport, resumeLine, rowWords, stopError } from '../../src/output/import-end';
import { type FakeContextOptions, fakeContext } from '../helpers/terminal';

/** What an import ends with, byte for byte as docs/bulk-import.md shows it; an error's class is its exit code. */

const TARGET = 'https://api.example.org/v1';
const J = '/home/pat/.config/petctl/imports/7a39.ndjson';
const NOW = new Date(2026, 10, 25, 14, 31, 4).getTime();

/** What the user reads of an error: the exit code, the code in brackets, the message and the hint. */
type Said = [exitCode: number, code: string, message: string, hint: unknown] | undefined;
const said = (error: PetctlError | undefined): Said => error && [error.exitCode, error.code, error.message, error.hint];

const STOPPED = 'the import stopped before sending another request: 5 rows created by this run, 7 rows not sent yet.';
const RESUMES = `${STOPPED} Once the cause is fixed, a rerun of the same command resumes`;
const LOST = `${STOPPED} It could not be written again, so a rerun would send the rows created before again`;
const ENOSPC = 'no space left on the device (ENOSPC)';
const FREE_SPACE = 'free some space on its disk or make its directory writable again, then rerun the same command';
const toResume = (rows = '7 rows') => `the import stopped, ${rows} not sent yet; rerun the same command to resume`;
const LISTS = `rerun with --retry-unknown: it lists the animals on ${TARGET}`;
const LOOK_AGAIN = `${LISTS} and sends only the rows it does not find`;
const MATCHED = `sent without an answer matched more than one animal on ${TARGET}: neither sent nor recorded`;
const AMBIGUOUS =
  "a rerun finds them ambiguous again: check each row's candidate ids (in its output line) with petctl pets get " +
  "<id>; if the row's animal is among them, take the row out of the file; if not, add it with petctl pets add and " +
  'take it out';
const FIX_TOO = 'fix the rejected and invalid rows too';
const FIX_ROWS = 'fix those rows in the file and rerun the same command: only the rows not created yet are sent';

const GONE = 'was deleted while the import ran';
const AGAIN = '; it was written again with every row on record';
const CHECK_LIST = 'check what was created with petctl pets list before importing this file again';
const unwritable = (error: PetctlError): ImportEnding => ({ kind: 'unwritable', error });
const deleted = (how: 'restored' | 'lost', more = '') =>
  unwritable(new JournalUnwritableError(J, `${GONE}${more}`, undefined, how));
const stop = { by: 'answer', kind: 'ban', at: NOW } as const;
const banned = new RateLimitError('banned', { code: 'key_banned', status: 429, stop });
const BANNED = 'the rate limit stopped the import: the API key is banned';
const waitLonger = 'raise --retries or --max-wait to wait longer';
const slowDown = new RateLimitError('rate limited: Slow down', { code: 'rate_limited', status: 429, hint: waitLonger });
const refused = new NetworkError('connection refused', { sent: true });

describe('the error each ending is', () => {
  const counts = { created: 5, rejected: 0, invalid: 0, unknown: 0, ambiguous: 0, left: 7 };
  it.each<[string, ImportEnding, Partial<typeof counts>, Said]>([
    ['every row created', { kind: 'done' }, {}, undefined],
    ['Ctrl-C', { kind: 'interrupted' }, {}, [130, 'interrupted', 'interrupted', undefined]],
    ['a full disk under the journal', unwritable(new JournalUnwritableError(J, ENOSPC, undefined)), {},
      [1, 'journal_unwritable', `cannot write the journal ${J}: ${ENOSPC}; ${RESUMES}`, FREE_SPACE]],
    ['the state file', unwritable(new StateUnwritableError('/c/state.json', ENOSPC, undefined)), {},
      [1, 'state_unwritable', `cannot write the rate-limit state file /c/state.json: ${ENOSPC}; ${RESUMES}`, FREE_SPACE]],
    ['the journal deleted, written again', deleted('restored', AGAIN), {},
      [1, 'journal_unwritable', `the journal ${J} ${GONE}${AGAIN}; ${RESUMES}`, 'rerun the same command to send the rest']],
    ['the journal deleted, not written again', deleted('lost'), {},
      [1, 'journal_unwritable', `the journal ${J} ${GONE}; ${LOST}`, CHECK_LIST]],
    // Its words: test/output/waits.test.ts.
    ['the rate limit, its stop known', { kind: 'rate_limited', error: banned }, {},
      [5, 'key_banned', `${BANNED}; 5 rows created, 7 left; resume later: rerun the same command`, expect.any(String)]],
    ['the rate limit without a stop: its own words and hint', { kind: 'rate_limited', error: slowDown }, {},
      [5, 'rate_limited', `rate limited: Slow down; ${toResume()}`, waitLonger]],
    ['another error: its class, code and hint', { kind: 'stopped', error: new NotConfiguredError('no key', 'login') }, {},
      [4, 'not_configured', `no key; ${toResume()}`, 'login']],
    ['a dropped connection that left a row unknown', { kind: 'stopped', error: refused }, { unknown: 1, left: 1 },
      [7, 'network_error', `connection refused; ${toResume('1 row')}`, `${LOOK_AGAIN}, then the row not sent yet`]],
    ['a dropped connection on the last rows: no rerun of the same command to resume', { kind: 'stopped', error: refused },
      { unknown: 2, left: 0 }, [7, 'network_error', 'connection refused; the import stopped, every row was sent', LOOK_AGAIN]],
    ['rows whose outcome is unknown', { kind: 'unknown' }, { unknown: 2 },
      [7, 'outcome_unknown', '2 rows sent without an answer: outcome unknown; they are never resent on their own',
        LOOK_AGAIN]],
    ['an ambiguous row', { kind: 'ambiguous' }, { ambiguous: 1 }, [6, 'ambiguous_rows', `1 row ${MATCHED}`, AMBIGUOUS]],
    ['ambiguous rows and a rejected one', { kind: 'ambiguous' }, { ambiguous: 2, rejected: 1 }, [6, 'ambiguous_rows',
      `2 rows ${MATCHED}; also 1 row rejected by the server, 0 rows invalid`, `${AMBIGUOUS}; ${FIX_TOO}`]],
    ['rows rejected and invalid', { kind: 'rejected' }, { rejected: 1, invalid: 1 },
      [6, 'rows_rejected', '1 row rejected by the server, 1 row invalid', FIX_ROWS]],
    ['only invalid rows', { kind: 'rejected' }, { invalid: 2 },
      [6, 'invalid_row', '0 rows rejected by the server, 2 rows invalid', FIX_ROWS]],
  ])('%s', (_title, ending, more, error) => {
    expect(said(endingError(ending, { ...counts, ...more }, NOW, TARGET))).toEqual(error);
  });

  it('after Ctrl-C, how to go on', () => {
    expect(resumeLine(90)).toBe('rerun the same command to send the 90 rows not sent yet');
    expect(resumeLine(1)).toBe('rerun the same command to send the row not sent yet');
  });
});

describe('the error of an import stopped before it sent', () => {
  const invalid = (n: number, skipInvalid: boolean, dryRun: boolean): ImportStop =>
    ({ kind: 'invalid_input', invalid: n, rows: 7, skipInvalid, dryRun });
  const busy = (holder: object, maxWaitMs: number): ImportStop =>
    ({ kind: 'journal_busy', journal: J, holder, maxWaitMs });
  const inUse = `the journal ${J} is in use by another import`;
  const BUSY_HINT =
    'run the same command again once that import has finished, or raise --max-wait to wait for it: ' +
    'the rows it created are skipped';
  const held = (who: string): Said => [1, 'journal_busy', `${inUse}${who}; nothing sent`, BUSY_HINT];
  const twoInvalid = '2 invalid rows of 7; nothing was sent';
  const rest = 'to send the valid rows and report the rest';
  const incomplete: ImportStop = { kind: 'listing_incomplete', page: 1, size: 100, notFound: 1 };
  it.each<[string, ImportStop, Said]>([
    ['invalid rows', invalid(2, false, false), [6, 'invalid_input', twoInvalid, `fix them, or add --skip-invalid ${rest}`]],
    ['invalid rows, --dry-run', invalid(2, false, true),
      [6, 'invalid_input', twoInvalid, `fix them, or add --skip-invalid and leave out --dry-run ${rest}`]],
    ['invalid rows, --dry-run --skip-invalid', invalid(2, true, true),
      [6, 'invalid_input', twoInvalid, 'fix them; without --dry-run the valid rows are sent and these reported']],
    ['one invalid row', invalid(1, false, false),
      [6, 'invalid_input', '1 invalid row of 7; nothing was sent', expect.any(String)]],
    ['the journal held, --max-wait 0', busy({ pid: 4242, source: 'rows.csv' }, 0), held(' (pid 4242, rows.csv)')],
    ['the journal held past --max-wait', busy({ pid: 4242, source: 'rows.csv' }, 60_000),
      held(' (pid 4242, rows.csv), which did not finish within --max-wait 60s')],
    ['the journal held by one that did not say who it is', busy({}, 1_000),
      held(', which did not finish within --max-wait 1s')],
    ['the holder named by its input alone', busy({ source: '-' }, 0), held(' (-)')],
    ['a listing that may be incomplete', incomplete, [7, 'listing_incomplete',
      `the listing of ${TARGET} may be incomplete: page 1 held 100 animals, as many as asked for, and came without a ` +
        'Link rel="next"; 1 row not found there may exist, so nothing was sent',
      'check those rows with petctl pets list --all, add the missing ones with petctl pets add and take them out of ' +
        'the file; a rerun without --retry-unknown sends the other rows and leaves them alone',
    ]],
    ["--retry-unknown's look stopped by the rate limit: nothing created",
      { kind: 'ended', ending: { kind: 'rate_limited', error: banned }, left: 2 },
      [5, 'key_banned', `${BANNED}; 0 rows created, 2 left; resume later: rerun the same command`, expect.any(String)]],
  ])('%s', (_title, stopped, error) => {
    expect(said(stopError(stopped, NOW, TARGET))).toEqual(error);
  });
});

describe('the lines of an import as it goes', () => {
  /** importReport over a fake Context: what it wrote to stdout and to stderr. */
  function report(t: Parameters<typeof fakeContext>[0], options: FakeContextOptions = {}) {
    const { ctx, io } = fakeContext(t, options);
    const seen = importReport({ reserve: 0, concurrency: 'auto' }, ctx);
    return { seen, out: () => io.stdout.text(), err: () => io.stderr.text() };
  }
  const holder = { pid: 4242, source: 'rows.csv' };
  const waiting = 'petctl: waiting for another import of rows.csv (pid 4242) to finish\n';
  const figures = `warning: the journal ${J} is in use by another import of rows.csv (pid 4242): ` +
    'these figures may change when it finishes\n';

  it.for<[string, FakeContextOptions, boolean, string]>([
    ['waiting, on a terminal: whom it waits for', { stderrTTY: true }, true, waiting],
    ['waiting, off a terminal with -v: the same', { globals: { verbose: true } }, true, waiting],
    ['waiting, off a terminal: silent', {}, true, ''],
    ['waiting, on a terminal with -q: silent', { stderrTTY: true, globals: { quiet: true } }, true, ''],
    ['--dry-run, off a terminal: the figures may change', {}, false, figures],
    ['--dry-run with -q: silent', { globals: { quiet: true } }, false, ''],
  ])('the journal held: %s', ([, options, wait, line], t) => {
    const { seen, err } = report(t, options);
    seen.journalHeld(J, holder, wait);
    expect(err()).toBe(line);
  });

  const dryRun = { rows: 7, valid: 5, invalid: 2, wouldSend: 3, done: 2, unknown: 0, journal: J };
  it.for([
    ['table', `would send 3 of 7 rows: 2 already created, 0 with an unknown outcome, 2 invalid; journal ${J}\n`],
    ['csv', `rows,valid,invalid,wouldSend,done,unknown,journal\n7,5,2,3,2,0,${J}\n`],
    ['ndjson', `{"dryRun":true,"rows":7,"valid":5,"invalid":2,"wouldSend":3,"done":2,"unknown":0,"journal":"${J}"}\n`],
    ['json', `${JSON.stringify({ dryRun: true, ...dryRun }, null, 2)}\n`],
  ] as const)('the --dry-run report, -o %s', ([output, text], t) => {
    const { seen, out } = report(t, { globals: { output } });
    seen.dryRun(dryRun);
    expect(out()).toBe(text);
  });

  const lastAt = (minute: number) => new Date(2026, 10, 25, 3, minute).toISOString();
  const scan = (toSend: number, skipped: Array<[string, number, number]> = [], more = {}) => {
    const bySource = skipped.map(([source, , minute]) => [source, lastAt(minute)] as const);
    const skippedCount = skipped.reduce((sum, [, count]) => sum + count, 0);
    return { invalid: 0, toSend, changed: [], skippedCount, skipped: new Map(bySource), ...more } as unknown as Scan;
  };
  const label = (source: string) => (source === '-' ? 'standard input' : source);
  const scanned = { ignored: [], refused: false, label };
  const skipped = (rows: string, from: string, why = '--new sends them again') =>
    `skipped ${rows} already created from ${from} (last import 2026-11-25 03:38); ${why}\n`;
  it.for<[string, Scan, { resumed?: boolean; quiet?: boolean }, string]>([
    ['a rerun', scan(2, [['intake.csv', 5, 38]]), {}, skipped('5 rows', 'intake.csv')],
    ['a rerun of two inputs: the later import', scan(0, [['/home/pat/a.csv', 3, 12], ['-', 1, 38]]), {},
      skipped('4 rows', '/home/pat/a.csv, standard input')],
    ['a --new import resumed', scan(3, [['intake.csv', 1, 38]]), { resumed: true },
      skipped('1 row', 'intake.csv', 'this --new import resumes the one that did not finish')],
    ['-q, nothing left to send: said', scan(0, [['-', 2, 38]]), { quiet: true }, skipped('2 rows', 'standard input')],
    ['-q, with rows to send: silent', scan(1, [['-', 2, 38]]), { quiet: true }, ''],
    ['nothing skipped', scan(3), {}, ''],
  ])('the rows skipped: %s', ([, facts, { resumed = false, quiet = false }, line], t) => {
    const { seen, err } = report(t, { globals: { quiet } });
    seen.scanned(facts, { ...scanned, resumed });
    expect(err()).toBe(line);
  });

  it.for<[string, string[], string]>([
    ['named columns', ['Breed', 'Notes'], 'ignoring columns: Breed, Notes\n'],
    ['named, and columns whose header is empty', ['Breed', ''], 'ignoring columns: Breed, and those without a header\n'],
    ['only columns whose header is empty (a header ending in ,,,)', [''], 'ignoring the columns without a header\n'],
  ])('the columns ignored: %s', ([, ignored, line], t) => {
    const { seen, err } = report(t);
    seen.scanned(scan(1), { ...scanned, ignored, resumed: false });
    expect(err()).toBe(line);
  });

  it('invalid rows: the first 20, then how many more (with -q too); a row created before and changed since', (t) => {
    const { seen, err } = report(t, { globals: { quiet: true } });
    for (let row = 1; row <= 25; row++) seen.invalid(row, row + 1, `bad ${row}`);
    const record = { state: 'created', pet: { id: 100n }, at: lastAt(38) };
    const changed = [{ row: 26, line: 27, id: 'A-1', record }];
    seen.scanned(scan(0, [], { invalid: 25, changed }), { ...scanned, resumed: false });
    const lines = err().split('\n');
    const shown = Array.from({ length: 20 }, (_, i) => `line ${i + 2} (row ${i + 1}): bad ${i + 1}`);
    expect(lines.slice(0, 20)).toEqual(shown);
    expect(lines.slice(20)).toEqual([
      '... and 5 more invalid rows (25 in all)',
      'line 27 (row 26): A-1 was created as 100 on 2026-11-25; it has changed since, and the service cannot ' +
        'update animals',
      '',
    ]);
  });

  it('--retry-unknown: what the look found (a notice), and where it stopped (a line kept with -q)', (t) => {
    const { seen, err } = report(t);
    seen.looked({ rows: 10, animals: 1234, pages: 13, found: 8, resend: 2, ambiguous: 0 }, TARGET);
    seen.looked({ rows: 1, animals: 1, pages: 1, found: 0, resend: 0, ambiguous: 1 }, undefined);
    seen.lookStopped(300, 4);
    const stopped = (animals: number, page: number) =>
      `looking for the rows sent without an answer stopped after ${animals} animals (page ${page}); ` +
      'nothing was sent and nothing recorded\n';
    expect(err()).toBe(
      `looked for 10 rows sent without an answer among 1,234 animals on ${TARGET} (13 pages): ` +
        '8 found, 2 not found (sent again), 0 ambiguous\n' +
        'looked for 1 row sent without an answer among 1 animal on the built-in sandbox (1 page): ' +
        '0 found, 0 not found (sent again), 1 ambiguous\n' +
        stopped(300, 4),
    );
    const quiet = report(t, { globals: { quiet: true } });
    quiet.seen.looked({ rows: 1, animals: 1, pages: 1, found: 1, resend: 0, ambiguous: 0 }, TARGET);
    quiet.seen.lookStopped(0, 1);
    expect(quiet.err()).toBe(stopped(0, 1));
  });

  it("a row's words: how to look for it, and its candidates (one, or several, int64-exact)", () => {
    const words = rowWords(TARGET);
    expect(words.retryUnknown).toBe(`${LISTS} and sends the row again only if it does not find it`);
    expect(words.ambiguous([17])).toBe(
      'sent earlier without an answer; the one animal with the fields it sent (id 17) ' +
        "may be another row's, which sent the same; neither sent nor recorded",
    );
    expect(words.ambiguous([17, 9007199254740993n])).toBe(
      'sent earlier without an answer; 2 animals have the fields it sent (ids 17, 9007199254740993); ' +
        'neither sent nor recorded',
    );
  });

  it.for([
    [false, 'petctl: stopping: no new requests; waiting for the ones in flight (Ctrl-C again to stop waiting)\n'],
    [true, ''],
  ] as const)('the first Ctrl-C off a terminal, -q %s: one line, or none', ([quiet, line], t) => {
    const { seen, err } = report(t, { globals: { quiet } });
    const sending = seen.sending({ total: 3, toSend: 3, baseUrl: TARGET });
    sending.stopping();
    sending.stop();
    expect(err()).toBe(line);
  });
});
