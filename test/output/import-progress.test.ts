import { describe, expect, it } from 'vitest';
import { created } from '../../src/bulk/results';
import { ImportProgress, perMinute, summaryLine } from '../../src/output/import-progress';
import { recordingStream } from '../helpers/cli';

/**
 * The progress bar's figures with a fake clock at the real lengths: the
 * Free plan (60 a minute), 150 rows, the first window's 60 sent in 0.18 s.
 */

const T0 = Date.UTC(2026, 10, 25, 14, 0, 0);

function freePlanImport(options: { toSend: number; reserve?: number }) {
  let now = T0;
  const stderr = recordingStream({ isTTY: true, columns: 120 });
  const progress = new ImportProgress(stderr, { quiet: false, verbose: false, total: options.toSend, toSend: options.toSend, reserve: options.reserve, now: () => now });
  const reset = Math.ceil((T0 + 60_000) / 1000);
  let sent = 0;
  const burst = (count: number, limit = 60) => {
    for (let i = 0; i < count; i++) {
      now += 3;
      sent += 1;
      progress.answer(201, { limit, remaining: limit - i - 1, resetEpochSeconds: reset });
      progress.row(created(sent, sent + 1, { id: sent, name: `P${sent}`, categoryId: 1 }), true);
    }
  };
  const frame = () => stderr.writes.filter((chunk) => chunk.startsWith('\r\x1b[Kimport ')).at(-1)!;
  return { progress, burst, frame, at: (ms: number) => (now = T0 + ms) };
}

describe('import progress', () => {
  it('after the first window\'s burst: the rate is per minute since the start (60/min, not thousands), and the time left counts the windows still to wait', () => {
    const { progress, burst, frame } = freePlanImport({ toSend: 150 });
    burst(60);
    // 90 rows left, none in this window: the next window's 60, then one more window for the last 30.
    expect(frame()).toMatch(/^\r\x1b\[Kimport \[#{8}\.{12}\] 60\/150 · 60\/min · 429s: 0 · ~2m00s left$/);
    progress.stop();
  });

  it('when the window has just reopened, before its first answer, the rows beyond it still wait a window', () => {
    const { progress, burst, frame, at } = freePlanImport({ toSend: 150 });
    burst(60);
    // The reset has passed: this window takes 60 of the 90 left, the last 30 wait for the next one.
    at(60_500);
    progress.waiting(500);
    expect(frame()).toMatch(/ 60\/150 · 60\/min · 429s: 0 · ~60s left · rate-limit wait 1s$/);
    progress.stop();
  });

  it('within a window with room left, the time left is the burst only', () => {
    const { progress, burst, frame } = freePlanImport({ toSend: 40 });
    burst(20);
    expect(frame()).toMatch(/ 20\/40 · 20\/min · 429s: 0 · ~0\.1s left$/);
    progress.stop();
  });

  it('a reserve lowers what every window gives the import', () => {
    const { progress, burst, frame } = freePlanImport({ toSend: 150, reserve: 10 });
    burst(50);
    // The import stopped at 10 left; 100 rows to go at 50 a window: two more windows.
    expect(frame()).toMatch(/ 50\/150 · 50\/min · 429s: 0 · ~2m00s left$/);
    progress.stop();
  });

  it('the rate: rows per minute since the start, over at least a minute', () => {
    expect(perMinute(60, 180)).toBe(60);
    expect(perMinute(150, 120_000)).toBe(75);
    expect(summaryLine({ created: 3, skipped: 1, rejected: 0, invalid: 1, unknown: 0, noStatus: 0 }, 400, '/j')).toBe('created 3, skipped 1, rejected 0, invalid 1, unknown 0 in 0.4s (3/min); journal /j');
  });
});
