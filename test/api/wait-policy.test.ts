import { describe, expect, it } from 'vitest';
import {
  MINUTE_WINDOW_MAX_MS,
  type WaitKind,
  codeFor,
  countsTowardMaxWait,
  fitsBudget,
  gateStopError,
  gateWaitKind,
  gateWaitNotice,
  planRetry,
  retryNotice,
  windowKind,
} from '../../src/api/wait-policy';

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

  it('a window reopening within 2 minutes is the minute; later, the day', () => {
    expect(windowKind(NOW + 2 * MINUTE, NOW)).toBe('minute_window');
    expect(windowKind(NOW + 2 * MINUTE + 1, NOW)).toBe('day_quota');
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
    { kind: 'probe', paced: false, counts: false },
  ] as Array<{ kind: WaitKind; paced: boolean; counts: boolean }>)('$kind (paced: $paced) counts toward --max-wait: $counts', ({ kind, paced, counts }) => {
    expect(countsTowardMaxWait(kind, paced)).toBe(counts);
  });
});

describe('fitsBudget: what is left of --max-wait', () => {
  it('a single command: the 60 s window against --max-wait 60 after nothing waited fits; after 1 s waited it does not', () => {
    expect(fitsBudget('minute_window', 60 * SECOND, { maxWaitMs: 60 * SECOND, waitedMs: 0 }, false)).toBe(true);
    expect(fitsBudget('minute_window', 60 * SECOND, { maxWaitMs: 60 * SECOND, waitedMs: SECOND }, false)).toBe(false);
    expect(fitsBudget('minute_window', 61 * SECOND, { maxWaitMs: 60 * SECOND, waitedMs: 0 }, false)).toBe(false);
  });

  it('a bulk import: the minute window always fits, the day quota and a long Retry-After do not', () => {
    expect(fitsBudget('minute_window', 61 * SECOND, { maxWaitMs: 0, waitedMs: 0 }, true)).toBe(true);
    expect(fitsBudget('day_quota', 23 * 60 * MINUTE, { maxWaitMs: 60 * SECOND, waitedMs: 0 }, true)).toBe(false);
    expect(fitsBudget('retry_after', 61 * SECOND, { maxWaitMs: 60 * SECOND, waitedMs: 0 }, true)).toBe(false);
  });

  it('--max-wait 0 allows no wait at all', () => {
    expect(fitsBudget('retry_after', 1, { maxWaitMs: 0, waitedMs: 0 }, false)).toBe(false);
  });
});

describe('planRetry', () => {
  const state = { retriesDone: 0, maxRetries: 4, method: 'GET', bans: 0 };
  const budget = { maxWaitMs: 60 * SECOND, waitedMs: 0 };
  const limited = { kind: 'response' as const, status: 429 };

  it('Retry-After is waited exactly, whether the window resets earlier or later', () => {
    // The caller never passes the window's reset along with a Retry-After: the server's word decides.
    expect(planRetry({ outcome: limited, retryAfterMs: 2 * SECOND }, state, budget, false, half)).toEqual({ retry: true, kind: 'retry_after', ms: 2 * SECOND });
    expect(planRetry({ outcome: limited, retryAfterMs: 10 * SECOND }, state, budget, false, half)).toEqual({ retry: true, kind: 'retry_after', ms: 10 * SECOND });
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

  it('a Retry-After longer than what is left of --max-wait: no retry', () => {
    expect(planRetry({ outcome: limited, retryAfterMs: 61 * SECOND }, state, budget, false, half)).toMatchObject({ retry: false });
    expect(planRetry({ outcome: limited, retryAfterMs: 30 * SECOND }, state, { maxWaitMs: 60 * SECOND, waitedMs: 31 * SECOND }, false, half)).toMatchObject({
      retry: false,
    });
  });

  it('a ban is waited out once; the second ends it', () => {
    expect(planRetry({ outcome: limited, retryAfterMs: 30 * SECOND, banned: true }, { ...state, bans: 1 }, budget, false, half)).toEqual({
      retry: true,
      kind: 'ban',
      ms: 30 * SECOND,
    });
    expect(planRetry({ outcome: limited, retryAfterMs: 30 * SECOND, banned: true }, { ...state, retriesDone: 1, bans: 2 }, budget, false, half)).toEqual({ retry: false });
  });

  it('retries and methods follow retry.ts: a POST after a 5xx is never retried; a refused loopback connection never is', () => {
    expect(planRetry({ outcome: { kind: 'response', status: 503 } }, { ...state, method: 'POST' }, budget, false, half)).toEqual({ retry: false });
    expect(planRetry({ outcome: { kind: 'network', sent: false, retryable: false } }, state, budget, false, half)).toEqual({ retry: false });
    expect(planRetry({ outcome: limited, retryAfterMs: 1000 }, { ...state, retriesDone: 4 }, budget, false, half)).toEqual({ retry: false });
  });

  it('--max-wait 0: not even a 0 ms backoff', () => {
    expect(planRetry({ outcome: limited }, state, { maxWaitMs: 0, waitedMs: 0 }, false, () => 0)).toMatchObject({ retry: false });
  });
});

describe('what the user reads', () => {
  it('a stop before sending says when to try again in local time, to the second, with the code of its kind', () => {
    const window = gateStopError('minute_window', NOW + 61 * SECOND, NOW, 60 * SECOND);
    expect(window.message).toBe('rate limit reached; nothing sent. Try again at 14:32:05, in 61s');
    expect(window.code).toBe('rate_limited');
    expect(window.retryAt).toBe(NOW + 61 * SECOND);
    expect(window.hint).toBe('raise --max-wait to wait longer');

    const day = gateStopError('day_quota', NOW + DAY, NOW, 60 * SECOND);
    expect(day.message).toMatch(/^the daily quota is used up; nothing sent\. Try again at 2026-11-26 14:31:04, in 24h00m$/);
    expect(day.code).toBe('quota_exhausted');

    const ban = gateStopError('ban', NOW + 30 * SECOND, NOW, 60 * SECOND);
    expect(ban.message).toBe('the API key is banned until 14:31:34; nothing sent. Try again at 14:31:34, in 30s');
    expect(ban.code).toBe('key_banned');
    expect(ban.reason).toBe('the API key is banned until 14:31:34');
  });

  it('notices name the wait', () => {
    expect(gateWaitNotice('minute_window', 58 * SECOND, NOW + 58 * SECOND, NOW)).toBe('rate limit reached; waiting 58s for the window to reopen');
    expect(gateWaitNotice('retry_after', 3 * SECOND, NOW + 3 * SECOND, NOW)).toBe('rate limited (HTTP 429, Retry-After); waiting 3s, until 14:31:07');
    expect(retryNotice('HTTP 429', 'retry_after', 2 * SECOND, 1, 4, NOW)).toBe('HTTP 429; retry 1/4 in 2s');
    expect(retryNotice('HTTP 429', 'ban', 30 * SECOND, 1, 4, NOW)).toBe('the API key is banned until 14:31:34; retry 1/4 in 30s');
  });
});
