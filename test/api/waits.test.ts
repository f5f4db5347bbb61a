import { describe, expect, it } from 'vitest';
import type { WaitKind } from '../../src/errors';
import {
  type AttemptOutcome,
  HOLD_CAP_MS,
  HOLD_MIN_MS,
  MINUTE_WINDOW_MAX_MS,
  attemptFits,
  codeFor,
  countsTowardMaxWait,
  backoffMs,
  fitsBudget,
  gateWaitKind,
  observe,
  planRetry,
  requestDeadline,
  shouldRetry,
} from '../../src/api/waits';
import { steadyClock } from '../../src/api/clock';

const NOW = new Date(2026, 10, 25, 14, 31, 4, 0).getTime();
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;
const half = () => 0.5;

describe('the kinds of wait', () => {
  it.each([
    { reason: 'probe' as const, until: NOW + 20, kind: 'probe' },
    { reason: 'key_banned' as const, until: NOW + 30 * SECOND, kind: 'ban' },
    { reason: 'rate_limited' as const, until: NOW + 2 * SECOND, kind: 'retry_after' },
    { reason: 'window' as const, until: NOW + 61 * SECOND, kind: 'minute_window' },
    { reason: 'quota_exhausted' as const, until: NOW + MINUTE_WINDOW_MAX_MS, kind: 'minute_window' },
    { reason: 'window' as const, until: NOW + MINUTE_WINDOW_MAX_MS + 1, kind: 'day_quota' },
    { reason: 'quota_exhausted' as const, until: NOW + DAY, kind: 'day_quota' },
  ])('the gate waiting for $reason until now+$until is $kind', ({ reason, until, kind }) => {
    expect(gateWaitKind({ go: false, reason, until }, NOW)).toBe(kind);
  });

  it.each([
    ['retry_after', 'rate_limited'],
    ['minute_window', 'rate_limited'],
    ['backoff', 'rate_limited'],
    ['day_quota', 'quota_exhausted'],
    ['ban', 'key_banned'],
  ] as Array<[WaitKind, string]>)('a stop after %s has code %s', (kind, code) => {
    expect(codeFor(kind)).toBe(code);
  });

  it.each([
    { kind: 'minute_window', paced: false, counts: true },
    { kind: 'minute_window', paced: true, counts: false },
    { kind: 'day_quota', paced: true, counts: true },
    { kind: 'retry_after', paced: true, counts: true },
    { kind: 'ban', paced: true, counts: true },
    { kind: 'backoff', paced: true, counts: true },
    { kind: 'probe', paced: true, counts: false },
  ] as Array<{ kind: WaitKind; paced: boolean; counts: boolean }>)('$kind (paced: $paced) counts toward --max-wait: $counts', ({ kind, paced, counts }) => {
    expect(countsTowardMaxWait(kind, paced)).toBe(counts);
  });
});

describe('fitsBudget: what is left of --max-wait', () => {
  it('a single command: the 60 s window against --max-wait 60 after nothing waited fits; after 1 s waited it does not', () => {
    expect(fitsBudget('minute_window', 60 * SECOND, { maxWaitMs: 60 * SECOND, waitedMs: 0 }, false)).toBe(true);
    expect(fitsBudget('minute_window', 60 * SECOND, { maxWaitMs: 60 * SECOND, waitedMs: SECOND }, false)).toBe(false);
    expect(fitsBudget('minute_window', 61 * SECOND, { maxWaitMs: 60 * SECOND, waitedMs: 0 }, false)).toBe(false);
    // --max-wait 0 allows no wait at all.
    expect(fitsBudget('retry_after', 1, { maxWaitMs: 0, waitedMs: 0 }, false)).toBe(false);
  });

  it('a bulk import: the minute window always fits, the day quota and a long Retry-After do not', () => {
    expect(fitsBudget('minute_window', 61 * SECOND, { maxWaitMs: 0, waitedMs: 0 }, true)).toBe(true);
    expect(fitsBudget('day_quota', 23 * 60 * MINUTE, { maxWaitMs: 60 * SECOND, waitedMs: 0 }, true)).toBe(false);
    expect(fitsBudget('retry_after', 61 * SECOND, { maxWaitMs: 60 * SECOND, waitedMs: 0 }, true)).toBe(false);
  });
});

describe('planRetry', () => {
  const state = { timeLeftMs: 61 * SECOND, timeoutMs: 30 * SECOND, retriesDone: 0, maxRetries: 4, method: 'GET', bans: 0 };
  const budget = { maxWaitMs: 60 * SECOND, waitedMs: 0 };
  const limited = { kind: 'response' as const, status: 429 };

  it("a retry is made only when its attempt could still end within the request's bound", () => {
    const silent = { kind: 'network' as const, sent: true };
    // --timeout 30, --max-wait 60: the first attempt timed out at 30 s, 31 s are left.
    expect(planRetry({ outcome: silent }, { ...state, timeLeftMs: 31 * SECOND }, budget, false, half)).toMatchObject({ retry: true });
    // Past 60 s, less than a second is left once the backoff is waited: no retry.
    expect(planRetry({ outcome: silent }, { ...state, timeLeftMs: 1.2 * SECOND }, budget, false, half)).toMatchObject({ retry: false, kind: 'backoff' });
    // --timeout 0.5: half a second is enough for its attempt.
    expect(planRetry({ outcome: silent }, { ...state, timeoutMs: 500, timeLeftMs: 1 * SECOND }, budget, false, () => 0)).toMatchObject({ retry: true });
    expect(planRetry({ outcome: limited, retryAfterMs: 10 * SECOND }, { ...state, timeLeftMs: 10.5 * SECOND }, budget, false, half)).toMatchObject({ retry: false });
  });

  it('the bound: max(--timeout, --max-wait) and a second after the first attempt', () => {
    expect(requestDeadline(1000, 30 * SECOND, 60 * SECOND)).toBe(62 * SECOND);
    expect(requestDeadline(0, 2 * SECOND, 6 * SECOND)).toBe(7 * SECOND);
    expect(requestDeadline(0, 30 * SECOND, 0)).toBe(31 * SECOND);
    expect(attemptFits(999, 30 * SECOND)).toBe(false);
    expect(attemptFits(1000, 30 * SECOND)).toBe(true);
    expect(attemptFits(500, 500)).toBe(true);
  });

  it('without Retry-After: exactly until the window reset the answer named, else the hold, never a random backoff', () => {
    expect(planRetry({ outcome: limited, resetInMs: 58 * SECOND }, state, budget, false, half)).toEqual({ retry: true, kind: 'minute_window', ms: 58 * SECOND });
    expect(planRetry({ outcome: limited, resetInMs: 100 }, state, budget, false, half)).toEqual({ retry: true, kind: 'minute_window', ms: 100 });
    expect(planRetry({ outcome: limited, holdMs: 5 * SECOND }, state, budget, false, half)).toEqual({ retry: true, kind: 'backoff', ms: 5 * SECOND });
  });

  it('a 503 with Retry-After on a GET: exactly Retry-After; beyond --max-wait, no retry', () => {
    const unavailable = { kind: 'response' as const, status: 503 };
    expect(planRetry({ outcome: unavailable, retryAfterMs: 30 * SECOND }, state, budget, false, half)).toEqual({ retry: true, kind: 'retry_after', ms: 30 * SECOND });
    expect(planRetry({ outcome: unavailable, retryAfterMs: 61 * SECOND }, state, budget, false, half)).toMatchObject({ retry: false });
    expect(planRetry({ outcome: unavailable, retryAfterMs: 30 * SECOND }, { ...state, method: 'POST' }, budget, false, half)).toEqual({ retry: false });
  });

  it('a ban is waited out once; the second ends it', () => {
    expect(planRetry({ outcome: limited, retryAfterMs: 30 * SECOND, banned: true }, { ...state, bans: 1 }, budget, false, half)).toEqual({
      retry: true,
      kind: 'ban',
      ms: 30 * SECOND,
    });
    expect(planRetry({ outcome: limited, retryAfterMs: 30 * SECOND, banned: true }, { ...state, retriesDone: 1, bans: 2 }, budget, false, half)).toEqual({ retry: false });
  });

  it('no retry of a refused loopback connection, nor under --max-wait 0 (not even a 0 ms backoff)', () => {
    expect(planRetry({ outcome: { kind: 'network', sent: false, retryable: false } }, state, budget, false, half)).toEqual({ retry: false });
    expect(planRetry({ outcome: limited }, state, { maxWaitMs: 0, waitedMs: 0 }, false, () => 0)).toMatchObject({ retry: false });
  });
});

describe('shouldRetry', () => {
  const response = (status: number): AttemptOutcome => ({ kind: 'response', status });
  const network: AttemptOutcome = { kind: 'network', sent: true };

  const cases = [
    // A 429 was not processed: any method may be sent again.
    { outcome: response(429), method: 'GET', done: 0, max: 4, retry: true },
    { outcome: response(429), method: 'POST', done: 0, max: 4, retry: true },
    { outcome: response(429), method: 'GET', done: 4, max: 4, retry: false },
    { outcome: response(429), method: 'GET', done: 0, max: 0, retry: false },
    // Gateway errors: only an idempotent GET is repeated.
    { outcome: response(502), method: 'GET', done: 0, max: 4, retry: true },
    { outcome: response(503), method: 'GET', done: 1, max: 4, retry: true },
    { outcome: response(504), method: 'GET', done: 3, max: 4, retry: true },
    { outcome: response(502), method: 'POST', done: 0, max: 4, retry: false },
    { outcome: response(503), method: 'POST', done: 0, max: 4, retry: false },
    // Other statuses are answers, not transient faults.
    { outcome: response(500), method: 'GET', done: 0, max: 4, retry: false },
    { outcome: response(404), method: 'GET', done: 0, max: 4, retry: false },
    { outcome: response(200), method: 'GET', done: 0, max: 4, retry: false },
    // Network failure: a POST that may have arrived is never sent twice.
    { outcome: network, method: 'GET', done: 0, max: 4, retry: true },
    { outcome: network, method: 'POST', done: 0, max: 4, retry: false },
  ].map((c) => ({ ...c, label: c.outcome.kind === 'response' ? `HTTP ${c.outcome.status}` : 'network failure' }));

  it.each(cases)('$label on $method after $done of $max retries → $retry', ({ outcome, method, done, max, retry }) => {
    expect(shouldRetry(outcome, done, max, method)).toBe(retry);
  });
});

describe('backoffMs', () => {
  it.each([
    // Full jitter: random × min(cap, base × 2^n).
    { done: 0, random: 0, delay: 0 },
    { done: 0, random: 0.9999, delay: 999 },
    { done: 1, random: 0.5, delay: 1000 },
    { done: 4, random: 0.5, delay: 8000 },
    // 2^5 s = 32 s is above the 30 s cap.
    { done: 5, random: 0.9999, delay: 29_997 },
    { done: 60, random: 0.5, delay: 15_000 },
  ])('retry $done, random $random → $delay ms', ({ done, random, delay }) => {
    expect(backoffMs(done, () => random)).toBe(delay);
  });
});

describe('steadyClock', () => {
  it('reads the machine clock once, then moves with the monotonic clock only: a step of the wall clock moves nothing', () => {
    let wall = NOW;
    let mono = 5_000;
    const now = steadyClock(() => wall, () => mono);
    expect(now()).toBe(NOW);
    mono += 4_000;
    wall -= 60 * MINUTE; // the machine's clock is set back an hour
    expect(now()).toBe(NOW + 4_000);
    mono += 26_000.75;
    wall += 2 * 60 * MINUTE;
    expect(now()).toBe(NOW + 30_000);
  });
});

describe('the hold after a 429 with no usable time', () => {
  const held = (holdMs: number, blockedUntil: number) => ({ holdMs, blockedUntil, reason: 'rate_limited' as const });
  const tracked = { window: { reset: Math.ceil(NOW / 1000) + 40, resetAt: NOW + 40 * SECOND, remaining: 3 } };

  it.each([
    { what: 'the larger of 5 s and what is left of the tracked window', entry: tracked, holdMs: 40 * SECOND },
    { what: '5 s when no window is tracked', entry: undefined, holdMs: HOLD_MIN_MS },
    { what: 'twice as long after a refused probe', entry: held(20 * SECOND, NOW - 1), holdMs: 40 * SECOND },
    { what: 'up to a minute', entry: held(40 * SECOND, NOW - 1), holdMs: HOLD_CAP_MS },
  ])('$what', ({ entry, holdMs }) => {
    const blocked = { blockedUntil: NOW + holdMs, holdMs, reason: 'rate_limited' };
    expect(observe(entry, { status: 429 }, NOW)).toMatchObject(blocked);
  });

  // The probe getting through ends the hold: waits-table.test.ts, 'a server that limits without saying how far'.
  it('a 429 to a request sent before the hold began does not lengthen it', () => {
    expect(observe(held(5 * SECOND, NOW + 4 * SECOND), { status: 429 }, NOW)).toBeUndefined();
  });
});
