import { afterEach, describe, expect, it } from 'vitest';
import { created, failed } from '../../src/bulk/outcome';
import { ImportProgress, levelLine, perMinute, progressLine, summaryLine } from '../../src/output/import-progress';
import { createTestTerminal } from '../helpers/terminal';

/** The progress bar's figures on a fake clock at the real lengths: the Free plan (60 a minute), 150 rows. */

const T0 = Date.UTC(2026, 10, 25, 14, 0, 0);
const running: ImportProgress[] = [];
afterEach(() => running.splice(0).forEach((progress) => progress.stop()));

function freePlanImport(options: { toSend: number; reserve?: number; tty?: boolean; verbose?: boolean; concurrency?: number; width?: number }) {
  let now = T0;
  const { terminal, stderr } = createTestTerminal({ stderrTTY: options.tty ?? true, stderrColumns: options.width ?? 120 });
  const { toSend, reserve = 0, verbose = false, concurrency = 'auto' } = options;
  const progress = new ImportProgress(terminal.status, { quiet: false, verbose, total: toSend, toSend, reserve, concurrency, now: () => now });
  running.push(progress);
  let sent = 0;
  /** `count` rows sent and created 3 ms apart, answered with the window that resets at `resetMs` after T0. */
  const burst = (count: number, { limit = 60, resetMs = 60_000 } = {}) => {
    for (let i = 0; i < count; i++) {
      now += 3;
      sent += 1;
      progress.sending();
      progress.answer(201, { limit, remaining: limit - i - 1, resetEpochSeconds: Math.ceil((T0 + resetMs) / 1000) });
      progress.row(created(sent, sent + 1, { id: sent, name: `P${sent}`, categoryId: 1 }), true);
    }
  };
  const frame = () => stderr.writes.filter((chunk) => chunk.startsWith('\r\x1b[Kimport ')).at(-1)!;
  return { progress, burst, frame, stderr, at: (ms: number) => (now = T0 + ms) };
}

describe('import progress', () => {
  it.each<[string, { toSend: number; reserve?: number }, number, [number, number] | undefined, RegExp]>([
    // 90 rows left, none in this window: the next window's 60, then one more window for the last 30.
    ["after the first window's burst: the time left counts the windows still to wait", { toSend: 150 }, 60, undefined, /^\r\x1b\[Kimport \[#{8}\.{12}\] 60\/150 · \d+\/min · 429s: 0 · in flight 4 · ~2m00s left$/],
    ['within a window with room left, the time left is the burst only', { toSend: 40 }, 20, undefined, / 20\/40 · \d+\/min · 429s: 0 · in flight 4 · ~0\.1s left$/],
    // The import stopped at 10 left; 100 rows to go at 50 a window: two more windows.
    ['a reserve lowers what every window gives the import', { toSend: 150, reserve: 10 }, 50, undefined, / 50\/150 · \d+\/min · 429s: 0 · in flight 4 · ~2m00s left$/],
    // 240 left: 60 from the reset at 60 s, then three more windows (the last one's 60 a burst).
    ["rows beyond the window that opens after a wait wait for the windows after it, at the plan's rate", { toSend: 300 }, 60, [1_003, 59_000], / 60\/300 · 3600\/min · 429s: 0 · in flight 4 · ~3m59s left · rate-limit wait 59s$/],
    // The reset has passed: this window takes 60 of the 90 left, the last 30 wait for the next one.
    ['when the window has just reopened, before its first answer, the rows beyond it still wait a window', { toSend: 150 }, 60, [60_500, 500], / 60\/150 · 60\/min · 429s: 0 · in flight 4 · ~60s left · rate-limit wait 1s$/],
  ])('%s', (_title, options, count, wait, expected) => {
    const { progress, burst, frame, at } = freePlanImport(options);
    burst(count);
    if (wait) {
      at(wait[0]);
      progress.waiting(wait[1]);
    }
    expect(frame()).toMatch(expected);
  });

  it('the rate is rows created over the time since the first request; the time left is never less than the wait', () => {
    // 150 rows: the first window's 60, then the second window's 60 from its start at 60 s.
    const { progress, burst, frame, at } = freePlanImport({ toSend: 150 });
    burst(60);
    at(60_000);
    burst(60, { resetMs: 120_000 });
    at(64_003);
    progress.waiting(56_000);
    // 120 in 64 s is 113/min, not the plan's 60. The last 30 go in the window that opens when this wait ends.
    expect(frame()).toMatch(/ 120\/150 · 113\/min · 429s: 0 · in flight 4 · ~56s left · rate-limit wait 56s$/);
    // A Retry-After of 70 s outlasts the window (reset at 120 s): the rows are sent from its end.
    at(64_200);
    progress.waiting(70_000);
    expect(frame()).toMatch(/ · ~1m10s left · rate-limit wait 70s$/);
    at(64_600);
    // 55.4 s to the reset, shown as a wait of 56 s: the time left reads no less.
    progress.waiting(55_400);
    expect(frame()).toMatch(/ · ~56s left · rate-limit wait 56s$/);
    progress.answer(429, {});
    at(65_000);
    progress.waiting(90_000);
    // 30 rows left, 90 s of wait: never the 56 s to the reset.
    expect(frame()).toMatch(/ · 429s: 1 · in flight 4 · ~1m30s left · rate-limit wait 90s$/);
  });

  it('rejected rows are not counted in the rate: they were answered, not created', () => {
    const { progress, burst, frame, at } = freePlanImport({ toSend: 150 });
    burst(10);
    at(2_000);
    progress.row(failed(11, 12, { code: 'invalid_pet', message: 'bad', status: 400 }), true);
    // 10 created in 2 s since the first request (at 3 ms).
    expect(frame()).toMatch(/ 11\/150 · 300\/min · /);
  });

  /** `count` rows, each created `everyMs` after the one before, the first request at T0. */
  function steady(everyMs: number) {
    const run = freePlanImport({ toSend: 40 });
    let sent = 0;
    run.at(0);
    run.progress.sending();
    const next = () => {
      sent += 1;
      run.at(sent * everyMs);
      run.progress.row(created(sent, sent + 1, { id: sent, name: `P${sent}`, categoryId: 1 }), true);
    };
    return { ...run, next };
  }

  it('the rate reads `measuring` until 10 requests were answered or 10 s of sending, whichever is first', () => {
    // The 9th answer at 4.5 s still measures, the 10th shows 120/min.
    const fast = steady(500);
    for (let i = 0; i < 9; i++) fast.next();
    expect(fast.frame()).toMatch(/ 9\/40 · rate: measuring · 429s: 0 · /);
    fast.next();
    expect(fast.frame()).toMatch(/ 10\/40 · 120\/min · 429s: 0 · /);
    // 3 rows at 9.9 s still measure, at 10 s they show 18/min.
    const { progress, next, frame, at } = steady(3000);
    for (let i = 0; i < 3; i++) next();
    at(9_900);
    progress.waiting(50);
    expect(frame()).toMatch(/ 3\/40 · rate: measuring · 429s: 0 · /);
    at(10_000);
    progress.waiting(50);
    expect(frame()).toMatch(/ 3\/40 · 18\/min · 429s: 0 · /);
  });

  it('off a terminal there is no bar; a line is a plain line', () => {
    const { progress, burst, stderr } = freePlanImport({ toSend: 10, tty: false });
    burst(5);
    progress.line('petctl: stopping');
    progress.stop();
    expect(stderr.text()).toBe('petctl: stopping\n');
  });

  it('the summary\'s rate is the bar\'s: 3,000 rows created in 6.2 s since the first request is about 29,000/min', () => {
    expect(perMinute(3000, 6200)).toBeCloseTo(29_032, 0);
    const tally = { created: 3000, skipped: 1, rejected: 2, invalid: 1, unknown: 0, noStatus: 0, found: 0, resent: 0, ambiguous: 0 };
    expect(summaryLine(tally, { sendingMs: 6200, runMs: 6300 }, '/j')).toBe('created 3000, skipped 1, rejected 2, invalid 1, unknown 0 in 6.2s (29032/min); journal /j');
    // Nothing sent: the run's time, and 0/min.
    expect(summaryLine({ ...tally, created: 0, rejected: 0 }, { runMs: 40 }, '/j')).toBe('created 0, skipped 1, rejected 0, invalid 1, unknown 0 in 0.0s (0/min); journal /j');
    // With --retry-unknown: what became of the rows sent without an answer (resent ones are among those created).
    expect(summaryLine({ ...tally, found: 2, resent: 1, ambiguous: 3 }, { sendingMs: 6200, runMs: 6300 }, '/j', true)).toBe(
      'created 3000, skipped 1, rejected 2, invalid 1, unknown 0, found 2, resent 1, ambiguous 3 in 6.2s (29032/min); journal /j',
    );
  });
});

describe('the progress line on a narrow terminal', () => {
  const waiting = { done: 60, total: 150, rate: 1818.2, tooMany: 1, left: '~2m00s left', waitMs: 56_000 };
  const measuring = { done: 3, total: 150, tooMany: 0, left: '~2m57s left' };
  const inFlight = { ...waiting, inFlight: 12 };

  // The bar goes first, then the 429s, the time left and the wait; the counts and the rate are never cut.
  it.each([
    ['while a wait is under way', waiting, 120, 'import [########............] 60/150 · 1818/min · 429s: 1 · ~2m00s left · rate-limit wait 56s'],
    ['while a wait is under way', waiting, 80, 'import 60/150 · 1818/min · 429s: 1 · ~2m00s left · rate-limit wait 56s'],
    ['while a wait is under way', waiting, 60, 'import 60/150 · 1818/min · rate-limit wait 56s'],
    ['while the rate is measured', measuring, 120, 'import [....................] 3/150 · rate: measuring · 429s: 0 · ~2m57s left'],
    ['while the rate is measured', measuring, 80, 'import [..........] 3/150 · rate: measuring · 429s: 0 · ~2m57s left'],
    ['while the rate is measured', measuring, 60, 'import 3/150 · rate: measuring · 429s: 0 · ~2m57s left'],
    ['while the rate is measured', measuring, 40, 'import 3/150 · rate: measuring'],
    ['with the level in flight: it is the first part to go', inFlight, 120, 'import [########............] 60/150 · 1818/min · 429s: 1 · in flight 12 · ~2m00s left · rate-limit wait 56s'],
    ['with the level in flight: it is the first part to go', inFlight, 100, 'import [########............] 60/150 · 1818/min · 429s: 1 · ~2m00s left · rate-limit wait 56s'],
    ['narrower than the counts and the rate: the counts alone, never a part cut', waiting, 25, 'import 60/150 · 1818/min'],
    ['narrower than the counts and the rate: the counts alone, never a part cut', waiting, 24, 'import 60/150'],
    ['narrower than the counts and the rate: the counts alone, never a part cut', measuring, 30, 'import 3/150'],
    ['narrower than the counts and the rate: the counts alone, never a part cut', measuring, 12, '3/150'],
  ])('%s, %i columns: %j', (_title, state, columns, line) => {
    expect(progressLine(state, columns)).toBe(line);
    expect(line.length).toBeLessThan(columns);
  });

  it('on a terminal of 60 columns the bar drawn is the line laid out for 60; one without a width gets it whole', () => {
    expect(progressLine(waiting, undefined)).toBe('import [########............] 60/150 · 1818/min · 429s: 1 · ~2m00s left · rate-limit wait 56s');
    const { progress, frame, at } = freePlanImport({ toSend: 150, width: 60 });
    progress.sending();
    at(500);
    progress.answer(429, {});
    progress.waiting(56_000);
    expect(frame()).toBe('\r\x1b[Kimport 0/150 · rate: measuring · rate-limit wait 56s');
  });
});

describe('the level in flight under -v', () => {
  it('one line when sending starts, and one for each change, marked as curl marks its notes', () => {
    expect(levelLine({ level: 4, concurrency: 'auto' })).toBe('* in flight: 4 (--concurrency auto)');
    expect(levelLine({ level: 16, concurrency: 16 })).toBe('* in flight: 16 (--concurrency 16)');
    expect(levelLine({ level: 12, from: 11, cause: 'latency_held', latencyMs: 51.4, bestMs: 50 })).toBe('* in flight: 12, up from 11: answers in 51 ms (best 50 ms)');
    expect(levelLine({ level: 9, from: 12, cause: 'latency_rose', latencyMs: 130, bestMs: 0.84 })).toBe('* in flight: 9, down from 12: answers slowed to 130 ms (best 0.8 ms)');
    expect(levelLine({ level: 6, from: 12, cause: 'too_many_requests', status: 429 })).toBe('* in flight: 6, down from 12: HTTP 429');
    expect(levelLine({ level: 3, from: 6, cause: 'server_error', status: 503 })).toBe('* in flight: 3, down from 6: HTTP 503');
  });

  it('-v off a terminal: the start line before the first row, a change when it comes; none without -v', () => {
    const change = { level: 5, from: 4, cause: 'latency_held', latencyMs: 50, bestMs: 50 } as const;
    const verbose = freePlanImport({ toSend: 2, tty: false, verbose: true });
    verbose.progress.sending();
    verbose.progress.sending();
    verbose.at(50);
    verbose.progress.level(change);
    expect(verbose.stderr.text()).toBe('* in flight: 4 (--concurrency auto)\n* in flight: 5, up from 4: answers in 50 ms (best 50 ms)\n');
    const silent = freePlanImport({ toSend: 2, tty: false, concurrency: 8 });
    silent.progress.sending();
    silent.progress.level(change);
    expect(silent.stderr.text()).toBe('');
  });
});
