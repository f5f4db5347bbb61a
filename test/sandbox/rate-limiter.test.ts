import { describe, expect, it } from 'vitest';

import {
  applyRateLimit,
  parseRateLimitState,
  rateLimitPolicy,
  type KeyLimits,
  type RateLimitDecision,
  type RateLimitPolicyOptions,
  type RateLimitState,
} from '../../src/sandbox/rate-limiter';

const T0 = Date.UTC(2026, 0, 15, 10, 0, 30, 500); // deliberately not on a minute boundary
const free = { key: 'sandbox-free', perMinute: 60, perDay: 1_000 };
type Key = KeyLimits & { key: string };

/** `applyRateLimit` on a state of its own: `check` decides, `burst` sends `count` at once. */
function limiter(options: RateLimitPolicyOptions = {}) {
  const state: RateLimitState = {};
  const policy = rateLimitPolicy(options);
  const check = (now: number, key: Key = free) => applyRateLimit(state, key, policy, now);
  const burst = (count: number, now: number, key: Key = free): RateLimitDecision[] =>
    Array.from({ length: count }, () => check(now, key));
  return { state, check, burst };
}

const resetAt = (ms: number) => Math.ceil(ms / 1000);

it('rateLimitPolicy: a minute, a day of 1440 minutes, a 10-minute ban after 10; a shorter minute scales them', () => {
  expect(rateLimitPolicy()).toEqual({ minuteMs: 60_000, dayMs: 86_400_000, banAfter: 10, banMs: 600_000 });
  const scaled = { minuteMs: 1_000, dayMs: 1_440_000, banAfter: 10, banMs: 10_000 };
  expect(rateLimitPolicy({ minuteMs: 1_000 })).toEqual(scaled);
});

// Its 60 requests, the 61st refused, Remaining counted down, refusals not counted: test/spec/limits.test.ts.
describe('the minute window', () => {
  it('opens at the first request, not at a clock boundary; Retry-After is rounded up, at least 1', () => {
    const { burst, check } = limiter();
    burst(60, T0);
    // 29.5 s later the wall-clock minute has turned, but the key's window has not.
    const later = [29_500, 58_200, 59_999, 60_000].map((ms) => check(T0 + ms));
    expect(later.map((d) => [d.allowed, d.retryAfterSeconds])).toEqual([[false, 31], [false, 2], [false, 1], [true, undefined]]);
    expect(later[3]!.remaining).toBe(59);
  });
});

it('the day window: refuses request 1001 of a Free day until it resets; told once less is left than in the minute', () => {
  const { burst, check } = limiter();
  let last: RateLimitDecision | undefined;
  // 16 × 60 + 40 = 1000
  for (let minute = 0; minute < 17; minute += 1) last = burst(minute < 16 ? 60 : 40, T0 + minute * 60_000).at(-1);
  const dayReset = resetAt(T0 + 86_400_000);
  expect(last).toMatchObject({ allowed: true, remaining: 0, resetEpochSeconds: dayReset });
  const refused = check(T0 + 20 * 60_000);
  expect(refused).toMatchObject({ allowed: false, remaining: 0, resetEpochSeconds: dayReset });
  expect(refused.retryAfterSeconds).toBe((86_400_000 - 20 * 60_000) / 1000);
  expect(check(T0 + 86_400_000)).toMatchObject({ allowed: true, remaining: 59 });
  // Reported once fewer requests are left in the day than in the minute.
  const small = { key: 'k', perMinute: 10, perDay: 15 };
  burst(10, T0, small);
  // Minute: 9 left; day: 4 left.
  const decision = check(T0 + 60_000, small);
  expect(decision).toMatchObject({ allowed: true, limit: 10, remaining: 4, resetEpochSeconds: resetAt(T0 + 86_400_000) });
});

// When a ban begins and how long it lasts: test/spec/limits.test.ts.
it('the ban: lets a key in when it is over, its strikes forgiven', () => {
  const { burst, check, state } = limiter({ banAfter: 0 });
  burst(61, T0);
  expect(check(T0).banned).toBe(true);
  expect(check(T0 + 599_999)).toMatchObject({ banned: true, retryAfterSeconds: 1 });
  expect(check(T0 + 600_000)).toMatchObject({ allowed: true, remaining: 59 });
  // The strikes are forgiven, in the stored counts too (processes sharing them take the higher): a new
  // limited period starts from zero.
  expect(state['sandbox-free']).toMatchObject({ strikes: 0 });
  burst(59, T0 + 600_000);
  expect(check(T0 + 600_000).banned).toBeUndefined();
});

it('the ban: never bans a key that waits out its Retry-After', () => {
  const { burst, check, state } = limiter({ banAfter: 2 });
  let now = T0;
  for (let cycle = 0; cycle < 15; cycle += 1) {
    expect(burst(60, now).every((d) => d.allowed)).toBe(true);
    const refused = check(now);
    // Two early retries are tolerated (banAfter 2)…
    expect([refused, check(now + 10), check(now + 20)].map((d) => d.allowed)).toEqual([false, false, false]);
    now += (refused.retryAfterSeconds ?? 0) * 1000;
  }
  expect(state['sandbox-free']?.bannedUntil).toBeUndefined();
  expect(state['sandbox-free']?.dayCount).toBe(900);
});

// Counts written and read back: rate-limit-book.test.ts.
it('a stored state keeps its well-formed entries and drops the others instead of failing', () => {
  const { burst, state } = limiter();
  burst(59, T0);
  const stored = JSON.parse(JSON.stringify(state));
  expect(parseRateLimitState({ ...stored, a: { minuteStart: 'x' }, b: null })).toEqual(stored);
  expect(parseRateLimitState([1, 2])).toEqual({});
});

describe('a client that comes back at the rounded-up reset', () => {
  it('keeps its schedule: the next window starts where the last ended; after a longer pause, at the request', () => {
    const { burst, check } = limiter();
    const first = burst(60, T0).at(-1)!;
    expect(first.remaining).toBe(0);
    // The client comes back at the reset, rounded up to the second after T0 + 60 s.
    const next = check(first.resetEpochSeconds * 1000 + 5);
    expect(next).toMatchObject({ allowed: true, remaining: 59 });
    // This window ends exactly one minute after the last one ended, not a minute after the client came back.
    expect(next.resetEpochSeconds).toBe(resetAt(T0 + 120_000));
    // After a longer pause, a window opens at the request again.
    const later = T0 + 120_000 + 2_500;
    expect(check(later).resetEpochSeconds).toBe(resetAt(later + 60_000));
  });
});
