import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InterruptedError } from '../../src/errors';
import { fakeContext } from '../helpers/terminal';

/** ctx.wait: a countdown in place on a terminal, one notice off it, nothing with --quiet (the status line: test/terminal.test.ts). */

const CLEAR = '\r\x1b[K';
const WHY = 'rate limit reached; waiting 3s for the window to reopen';

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 0, 15, 10, 0, 0) });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('ctx.wait', () => {
  it('counts down in place on a TTY stderr the whole time, then erases the line; counts on the monotonic clock', async (t) => {
    let offset = 0;
    const { ctx, io } = fakeContext(t, { stderrTTY: true, now: () => Date.now() + offset, monotonic: () => performance.now() });
    let done = false;
    const waiting = ctx.wait(2500, WHY).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(io.stderr.writes).toEqual([`${CLEAR}petctl: ${WHY} (3s left)`]);
    await vi.advanceTimersByTimeAsync(499);
    expect(io.stderr.writes).toHaveLength(1);
    // The machine clock set back an hour neither lengthens the wait nor shows in it.
    offset = -60 * 60 * 1000;
    await vi.advanceTimersByTimeAsync(1);
    expect(io.stderr.writes.at(-1)).toBe(`${CLEAR}petctl: ${WHY} (2s left)`);
    await vi.advanceTimersByTimeAsync(1000);
    expect(io.stderr.writes.at(-1)).toBe(`${CLEAR}petctl: ${WHY} (1s left)`);
    await vi.advanceTimersByTimeAsync(999);
    // The whole time, no less.
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(io.stderr.writes).toEqual([3, 2, 1].map((left) => `${CLEAR}petctl: ${WHY} (${left}s left)`).concat(CLEAR));
    // A countdown never adds lines to the terminal, and never touches stdout.
    expect(io.stderr.text()).not.toContain('\n');
    expect(io.stdout.text()).toBe('');
    // A long wait reads as the notices write it: minutes and seconds from two minutes on.
    const long = ctx.wait(150_000, WHY);
    await vi.advanceTimersByTimeAsync(0);
    expect(io.stderr.writes.at(-1)).toBe(`${CLEAR}petctl: ${WHY} (2m30s left)`);
    await vi.advanceTimersByTimeAsync(31_000);
    expect(io.stderr.writes.at(-1)).toBe(`${CLEAR}petctl: ${WHY} (119s left)`);
    await vi.advanceTimersByTimeAsync(119_000);
    await long;
  });

  it.for([
    ['off a terminal says why in one line, once', {}, 5000, `petctl: ${WHY}\n`],
    ['--quiet waits silently, on a terminal too', { stderrTTY: true, globals: { quiet: true } }, 2000, ''],
    ['a wait under a second is silent', { stderrTTY: true }, 999, ''],
  ] as const)('%s', async ([, options, ms, said], t) => {
    const { ctx, io } = fakeContext(t, { ...options, now: () => Date.now(), monotonic: () => Date.now() });
    const waiting = ctx.wait(ms, WHY);
    await vi.advanceTimersByTimeAsync(ms);
    await waiting;
    expect(io.stderr.text()).toBe(said);
  });

  it('Ctrl-C during the countdown rejects with InterruptedError and erases the line', async (t) => {
    const controller = new AbortController();
    const { ctx, io } = fakeContext(t, { stderrTTY: true, signal: controller.signal, now: () => Date.now(), monotonic: () => Date.now() });
    const waiting = ctx.wait(10_000, WHY);
    const outcome = waiting.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1500);
    controller.abort();
    expect(await outcome).toBeInstanceOf(InterruptedError);
    expect(io.stderr.writes.at(-1)).toBe(CLEAR);
  });
});

it('ctx.announceWait: one wait, one notice: requests waiting for the same moment (within a second) share one line; a later wait gets its own; none with --quiet', async (t) => {
  const { ctx, io } = fakeContext(t, { now: () => Date.now(), monotonic: () => Date.now() });
  ctx.announceWait(2000, 'retry 1/4 in 2s: HTTP 429');
  ctx.announceWait(1990, 'rate limited (HTTP 429, Retry-After); waiting 2s, until 10:00:02');
  vi.advanceTimersByTime(400);
  ctx.announceWait(1600, 'rate limited (HTTP 429, Retry-After); waiting 2s, until 10:00:02');
  ctx.announceWait(999, 'too short to say');
  expect(io.stderr.text()).toBe('petctl: retry 1/4 in 2s: HTTP 429\n');
  vi.advanceTimersByTime(1600);
  ctx.announceWait(60_000, 'rate limit reached; waiting 60s for the window to reopen');
  expect(io.stderr.text()).toBe('petctl: retry 1/4 in 2s: HTTP 429\npetctl: rate limit reached; waiting 60s for the window to reopen\n');

  const quiet = fakeContext(t, { globals: { quiet: true } });
  quiet.ctx.announceWait(5000, 'anything');
  expect(quiet.io.stderr.text()).toBe('');
});
