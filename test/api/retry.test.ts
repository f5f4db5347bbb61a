import { describe, expect, it } from 'vitest';
import {
  MAX_PLAUSIBLE_RESET_MS,
  MAX_RETRY_AFTER_MS,
  ServerClock,
  parseHttpDate,
  parseRateHeaders,
  parseRetryAfter,
  resetDelayMs,
} from '../../src/api/limits/headers';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const HOUR = 60 * 60 * 1000;
const httpDate = (ms: number) => new Date(ms).toUTCString();

describe('parseHttpDate', () => {
  it.each([
    // RFC 9110 §5.6.7: recipients accept all three forms, all in GMT.
    { value: 'Sun, 06 Nov 1994 08:49:37 GMT', ms: Date.UTC(1994, 10, 6, 8, 49, 37) },
    { value: 'Sunday, 06-Nov-94 08:49:37 GMT', ms: Date.UTC(1994, 10, 6, 8, 49, 37) },
    { value: 'Sun Nov  6 08:49:37 1994', ms: Date.UTC(1994, 10, 6, 8, 49, 37) },
  ])('$value → $ms', ({ value, ms }) => {
    expect(parseHttpDate(value)).toBe(ms);
  });

  // Date.parse reads '1.5' and '2030-06-01' as dates; they are not HTTP-dates.
  it.each([undefined, '', 'soon', 'Sun, 99 Nov 1994 08:49:37 GMT', '1.5', '2030-06-01'])('%s: no date', (value) => {
    expect(parseHttpDate(value)).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  it.each([
    { what: 'delta-seconds', value: '1', serverDate: undefined, ms: 1000 },
    { what: 'a day, kept exactly (below the cap)', value: '86400', serverDate: undefined, ms: 86_400_000 },
    { what: 'surrounding spaces', value: ' 5 ', serverDate: undefined, ms: 5000 },
    { what: 'delta-seconds ignore the Date header', value: '3', serverDate: NOW - HOUR, ms: 3000 },
    { what: 'an HTTP-date on our clock without a Date header', value: httpDate(NOW + 2000), serverDate: undefined, ms: 2000 },
    { what: 'an HTTP-date on the server clock (Date 1 h behind)', value: httpDate(NOW - HOUR + 2000), serverDate: NOW - HOUR, ms: 2000 },
    { what: 'an HTTP-date in the past counts as absent', value: httpDate(NOW - 5000), serverDate: NOW, ms: undefined },
    { what: 'an HTTP-date equal to Date counts as absent', value: httpDate(NOW), serverDate: NOW, ms: undefined },
    { what: 'a decimal, rounded up to whole ms', value: '1.5', serverDate: undefined, ms: 1500 },
    { what: 'a decimal below a second', value: '0.25', serverDate: undefined, ms: 250 },
  ])('$what: $value → $ms', ({ value, serverDate, ms }) => {
    expect(parseRetryAfter(value, serverDate, NOW)).toBe(ms);
  });

  it.each([undefined, '', '0', 'later', '-5', 'NaN', '1e3', '2026-01-15T12:00:02Z'])('%s counts as absent', (value) => {
    expect(parseRetryAfter(value, undefined, NOW)).toBeUndefined();
  });

  it.each(['99999999999999999999', '100000000', 'Fri, 31 Dec 9999 23:59:59 GMT'])(
    'an absurd Retry-After (%s) is capped, so the time to try again stays a valid date',
    (value) => {
      const ms = parseRetryAfter(value, undefined, NOW)!;
      expect(ms).toBe(MAX_RETRY_AFTER_MS);
      expect(() => new Date(NOW + ms).toISOString()).not.toThrow();
    },
  );
});

describe('parseRateHeaders', () => {
  const headers = (values: Record<string, string | undefined>) => (name: string) => values[name.toLowerCase()];

  it.each([
    {
      what: 'all three',
      values: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1768478400' },
      rate: { limit: 60, remaining: 59, resetEpochSeconds: 1_768_478_400 },
    },
    { what: 'remaining 0', values: { 'x-ratelimit-remaining': '0' }, rate: { limit: undefined, remaining: 0, resetEpochSeconds: undefined } },
    { what: 'none', values: {}, rate: { limit: undefined, remaining: undefined, resetEpochSeconds: undefined } },
    { what: 'spaces', values: { 'x-ratelimit-limit': ' 300 ' }, rate: { limit: 300, remaining: undefined, resetEpochSeconds: undefined } },
    {
      what: 'garbage ignored',
      values: { 'x-ratelimit-limit': 'lots', 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': '1.5' },
      rate: { limit: undefined, remaining: undefined, resetEpochSeconds: undefined },
    },
    { what: 'empty ignored', values: { 'x-ratelimit-remaining': '' }, rate: { limit: undefined, remaining: undefined, resetEpochSeconds: undefined } },
    {
      what: 'more remaining than the limit: the limit',
      values: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '500', 'x-ratelimit-reset': '1768478400' },
      rate: { limit: 60, remaining: 60, resetEpochSeconds: 1_768_478_400 },
    },
  ])('$what', ({ values, rate }) => {
    expect(parseRateHeaders(headers(values))).toEqual(rate);
  });

  const nowS = NOW / 1000;
  it.each([
    { what: 'X-RateLimit-Reset as Unix seconds', values: { 'x-ratelimit-reset': String(nowS + 7) }, reset: nowS + 7 },
    { what: 'X-RateLimit-Reset as seconds until the reset (under 10^9)', values: { 'x-ratelimit-reset': '7' }, reset: nowS + 7 },
    { what: 'X-RateLimit-Reset as Unix milliseconds (over 10^12)', values: { 'x-ratelimit-reset': String(NOW + 7000) }, reset: nowS + 7 },
    { what: 'X-RateLimit-Reset as a fraction of Unix seconds', values: { 'x-ratelimit-reset': String(nowS + 7.25) }, reset: nowS + 7.25 },
    { what: 'X-RateLimit-Reset as a fraction of seconds until the reset', values: { 'x-ratelimit-reset': '6.6' }, reset: nowS + 7 },
    { what: 'X-RateLimit-Reset 0 (a delta of nothing)', values: { 'x-ratelimit-reset': '0' }, reset: undefined },
    { what: 'IETF RateLimit, structured (t= seconds, r= remaining)', values: { ratelimit: '"default";r=0;t=9', 'ratelimit-policy': '"default";q=10;w=10' }, reset: nowS + 9, remaining: 0, limit: 10 },
    { what: 'IETF RateLimit, two policies: the exhausted one binds', values: { ratelimit: '"day";r=500;t=80000, "burst";r=0;t=4' }, reset: nowS + 4, remaining: 0 },
    { what: 'IETF RateLimit, an earlier draft', values: { ratelimit: 'limit=10, remaining=3, reset=8' }, reset: nowS + 8, remaining: 3 },
    { what: 'IETF RateLimit-Remaining and RateLimit-Reset headers', values: { 'ratelimit-remaining': '2', 'ratelimit-reset': '5' }, reset: nowS + 5, remaining: 2 },
    { what: 'IETF r= above its q=: the quota', values: { ratelimit: '"default";r=90;t=9', 'ratelimit-policy': '"default";q=10;w=10' }, reset: nowS + 9, remaining: 10, limit: 10 },
    { what: 'IETF before X-RateLimit-*', values: { ratelimit: '"default";r=1;t=3', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': String(nowS + 50) }, reset: nowS + 3, remaining: 1 },
  ])('$what', ({ values, reset, remaining, limit }) => {
    const rate = parseRateHeaders(headers(values), NOW);
    expect(rate.resetEpochSeconds).toBe(reset);
    if (remaining !== undefined) expect(rate.remaining).toBe(remaining);
    if (limit !== undefined) expect(rate.limit).toBe(limit);
  });
});

describe('resetDelayMs', () => {
  const seconds = (ms: number) => Math.floor(ms / 1000);

  it.each([
    { what: 'no reset header', reset: undefined, serverDate: NOW, delay: undefined },
    { what: 'reset in 2 s, no Date header', reset: seconds(NOW) + 2, serverDate: undefined, delay: 2000 },
    { what: 'reset in 2 s, clocks agree', reset: seconds(NOW) + 2, serverDate: NOW, delay: 2000 },
    // Skew: the reset is on the server's clock, so it is measured from the server's Date.
    { what: 'server clock 1 h behind', reset: seconds(NOW - HOUR) + 2, serverDate: NOW - HOUR, delay: 2000 },
    { what: 'reset now', reset: seconds(NOW), serverDate: NOW, delay: undefined },
    { what: 'reset sent as a delta (30), read as 1970', reset: 30, serverDate: NOW, delay: undefined },
    { what: 'reset in year 2100', reset: seconds(Date.UTC(2100, 0, 1)), serverDate: NOW, delay: undefined },
    { what: 'reset a day off (a daily window)', reset: seconds(NOW) + 24 * 3600, serverDate: NOW, delay: 24 * HOUR },
    { what: 'reset just past the plausible limit', reset: seconds(NOW + MAX_PLAUSIBLE_RESET_MS) + 1, serverDate: NOW, delay: undefined },
  ])('$what → $delay', ({ reset, serverDate, delay }) => {
    expect(resetDelayMs(reset, serverDate, NOW)).toBe(delay);
  });
});

describe('ServerClock', () => {
  const at = (ms: number) => new Date(ms).toUTCString();

  it('knows nothing without a usable Date header; an hour behind is an hour behind', () => {
    const now = Date.UTC(2026, 10, 25, 12, 0, 0);
    const clock = new ServerClock(() => now);
    expect(clock.observe(undefined)).toBeUndefined();
    expect(clock.observe('yesterday')).toBeUndefined();
    expect(clock.observe(at(now - 3_600_000))).toBe(now - 3_600_000);
  });

  it('takes the highest (Date - our clock) seen as the skew: a lower bound that tightens with every answer', () => {
    let now = Date.UTC(2026, 10, 25, 12, 0, 0) + 900;
    const clock = new ServerClock(() => now);
    // The server is exactly 5 s ahead; its Date is cut to the second.
    const serverDate = () => at(Math.floor((now + 5000) / 1000) * 1000);
    expect(clock.observe(serverDate())! - now).toBe(4100); // at .900 Date says "at least 4.1 s ahead"
    now += 300;
    expect(clock.observe(serverDate())! - now).toBe(4800); // at .200: at least 4.8 s
    now += 600;
    expect(clock.observe(serverDate())! - now).toBe(4800); // at .800 a looser bound does not replace a tighter one
    now += 250;
    expect(clock.observe(serverDate())! - now).toBe(4950); // at .050
  });
});
