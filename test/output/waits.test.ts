import { describe, expect, it } from 'vitest';
import type { WaitStop } from '../../src/errors';
import { attemptsSpent, formatRetryWait, importStop, listingStop, requestStop, waitNotice } from '../../src/output/waits';

const NOW = new Date(2026, 10, 25, 14, 31, 4, 0).getTime();
const SECOND = 1000;
const DAY = 24 * 60 * 60 * SECOND;

const gateStop = (kind: WaitStop['kind'], until: number, noWait = false): WaitStop => ({ kind, until, at: NOW, by: 'gate', noWait });

describe('what the user reads of a stop', () => {
  it('a stop before sending says when to try again in local time, to the second', () => {
    expect(requestStop(gateStop('minute_window', NOW + 61 * SECOND))).toEqual({
      message: 'rate limit reached; nothing sent. Try again at 14:32:05, in 61s',
      hint: 'raise --max-wait to wait longer',
    });
    expect(requestStop(gateStop('day_quota', NOW + DAY)).message).toMatch(/^the daily quota is used up; nothing sent\. Try again at 2026-11-26 14:31:04, in 24h00m$/);
    expect(requestStop(gateStop('day_quota', NOW + DAY)).hint).toBeUndefined();
    expect(requestStop(gateStop('ban', NOW + 30 * SECOND)).message).toBe('the API key is banned until 14:31:34 (in 30s); petctl sends nothing before then');
    // Within a second, the moment is rounded up as the JSON line's retryAt is (14:32:05.000Z): both say the same second.
    expect(requestStop(gateStop('minute_window', NOW + 60_400)).message).toBe('rate limit reached; nothing sent. Try again at 14:32:05, in 61s');
    expect(requestStop(gateStop('ban', NOW + 29_001)).message).toBe('the API key is banned until 14:31:34 (in 30s); petctl sends nothing before then');
    // With --max-wait 0 no wait was asked for, so there is no hint to raise it.
    expect(requestStop(gateStop('minute_window', NOW + 61 * SECOND, true)).hint).toBeUndefined();
  });

  it('a 429 answer that ends the request quotes the server and says when to try again', () => {
    expect(requestStop({ kind: 'retry_after', until: NOW + 61 * SECOND, at: NOW, by: 'answer', serverMessage: 'Slow down' })).toEqual({
      message: 'rate limited: Slow down. Try again at 14:32:05, in 61s',
      hint: 'raise --retries or --max-wait to wait longer',
    });
    expect(requestStop({ kind: 'ban', at: NOW, by: 'answer' })).toEqual({ message: 'the API key is banned: too many requests. Try again later', hint: undefined });
    // After retries: the attempts, before when to try again.
    const stop: WaitStop = { kind: 'ban', until: NOW + 30 * SECOND, at: NOW, by: 'answer', serverMessage: 'API key banned', attempts: { count: 2, elapsedMs: 30_000 } };
    expect(requestStop(stop).message).toBe('the API key is banned until 14:31:34 (in 30s); petctl sends nothing before then (2 attempts over 30s)');
  });

  it('an import names the rows created and left, counted from its own end', () => {
    const stop = gateStop('day_quota', NOW + DAY);
    expect(importStop(stop, { created: 50, left: 30, code: 'quota_exhausted', now: NOW + 10 * SECOND })).toEqual({
      message: 'the rate limit stopped the import: the daily quota is used up; 50 rows created, 30 left; resume at 2026-11-26 14:31:04, in 23h59m: rerun the same command',
      hint: 'the journal keeps what was created: the rerun sends only the rest',
    });
    expect(importStop(gateStop('minute_window', NOW + 61 * SECOND), { created: 1, left: 2, code: 'rate_limited', now: NOW }).hint).toBe(
      'raise --max-wait to wait longer; the journal keeps what was created',
    );
  });

  it('a listing stopped in the gate names the page not requested, never "nothing sent"; a 429 for the page is worded as any request\'s', () => {
    const stop = gateStop('minute_window', NOW + 61 * SECOND);
    const { message, hint } = listingStop(stop, 13);
    expect(message).toBe('rate limit reached; page 13 not requested. Try again at 14:32:05, in 61s');
    expect(message).not.toContain('nothing sent');
    expect(hint).toBe('raise --max-wait to wait longer');
    const answered: WaitStop = { by: 'answer', kind: 'retry_after', at: NOW, until: NOW + 61 * SECOND, serverMessage: 'Too many requests' };
    expect(listingStop(answered, 13)).toEqual(requestStop(answered));
  });
});

describe('what the user reads of a wait', () => {
  it('gate waits name the wait; a retry says its number, its wait to the tenth of a second, and its reason', () => {
    expect(waitNotice({ what: 'gate', kind: 'minute_window', ms: 58 * SECOND, until: NOW + 58 * SECOND, at: NOW })).toBe('rate limit reached; waiting 58s for the window to reopen');
    expect(waitNotice({ what: 'gate', kind: 'retry_after', ms: 3 * SECOND, until: NOW + 3 * SECOND, at: NOW })).toBe('rate limited (HTTP 429, Retry-After); waiting 3s, until 14:31:07');
    expect(waitNotice({ what: 'gate', kind: 'retry_after', ms: 2_500, until: NOW + 2_500, at: NOW })).toBe('rate limited (HTTP 429, Retry-After); waiting 3s, until 14:31:07');
    const retry = { what: 'retry', at: NOW, retries: 4 } as const;
    expect(waitNotice({ ...retry, kind: 'backoff', ms: 400, retry: 1, reason: 'connection reset by the server' })).toBe('retry 1/4 in 0.4s: connection reset by the server');
    expect(waitNotice({ ...retry, kind: 'retry_after', ms: 2 * SECOND, retry: 1, reason: 'HTTP 429' })).toBe('retry 1/4 in 2s: HTTP 429');
    expect(waitNotice({ ...retry, kind: 'ban', ms: 30 * SECOND, retry: 2, reason: 'HTTP 429' })).toBe('retry 2/4 in 30s: the API key is banned');
  });

  it('a retry wait is never understated, and a minute or more reads as a wait', () => {
    expect(formatRetryWait(0)).toBe('0s');
    expect(formatRetryWait(1)).toBe('0.1s');
    expect(formatRetryWait(16_650)).toBe('16.7s');
    expect(formatRetryWait(61_000)).toBe('61s');
    // The final error after retries: how many attempts over how long.
    expect(attemptsSpent(5, 16_700)).toBe(', 5 attempts over 16.7s');
    expect(attemptsSpent(2, 125_000)).toBe(', 2 attempts over 2m05s');
  });
});
