import { describe, expect, it } from 'vitest';

import { sandboxKeys } from '../../src/sandbox/keys';
import {
  applyRateLimit,
  parseRateLimitState,
  rateLimitPolicy,
  type KeyLimits,
  type RateLimitDecision,
  type RateLimitPolicy,
  type RateLimitPolicyOptions,
  type RateLimitState,
} from '../../src/sandbox/rate-limiter';

/** An in-memory limiter over `applyRateLimit`, for these tests. */
class RateLimiter {
  readonly policy: RateLimitPolicy;
  private readonly current: RateLimitState;

  constructor(options: RateLimitPolicyOptions & { state?: RateLimitState } = {}) {
    this.policy = rateLimitPolicy(options);
    this.current = options.state ? structuredClone(options.state) : {};
  }

  check(key: KeyLimits & { key: string }, now: number): RateLimitDecision {
    return applyRateLimit(this.current, key, this.policy, now);
  }

  /** A copy of the state, fit for JSON. */
  get state(): RateLimitState {
    return structuredClone(this.current);
  }
}

const T0 = Date.UTC(2026, 0, 15, 10, 0, 30, 500); // deliberately not on a minute boundary
const free = { key: 'sandbox-free', perMinute: 60, perDay: 1_000 };

function burst(limiter: RateLimiter, count: number, now: number, key = free): RateLimitDecision[] {
  return Array.from({ length: count }, () => limiter.check(key, now));
}

describe('sandbox keys', () => {
  it('has one key per plan with the specification limits', () => {
    expect(sandboxKeys().map(({ key, plan, perMinute, perDay }) => [key, plan, perMinute, perDay])).toEqual([
      ['sandbox-free', 'free', 60, 1_000],
      ['sandbox-pro', 'pro', 300, 10_000],
      ['sandbox-business', 'business', 1_000, 100_000],
      ['sandbox-enterprise', 'enterprise', 5_000, 1_000_000],
    ]);
  });

  it('makes the Enterprise quotas configurable and rejects nonsense', () => {
    const enterprise = sandboxKeys({ enterprisePerMinute: 7, enterprisePerDay: 70 }).find((k) => k.plan === 'enterprise');
    expect(enterprise).toMatchObject({ perMinute: 7, perDay: 70 });
    expect(() => sandboxKeys({ enterprisePerMinute: 0 })).toThrow(/enterprisePerMinute/);
  });
});

describe('rateLimitPolicy', () => {
  it('defaults to a one-minute window, a day of 1440 minutes, a 10-minute ban after 10 requests', () => {
    expect(rateLimitPolicy()).toEqual({ minuteMs: 60_000, dayMs: 86_400_000, banAfter: 10, banMs: 600_000 });
  });

  it('scales the day and the ban with a shortened minute', () => {
    expect(rateLimitPolicy({ minuteMs: 1_000 })).toEqual({ minuteMs: 1_000, dayMs: 1_440_000, banAfter: 10, banMs: 10_000 });
  });
});

describe('the minute window', () => {
  it('lets 60 Free requests through, counting Remaining down, and refuses the 61st', () => {
    const limiter = new RateLimiter();
    const decisions = burst(limiter, 61, T0);
    expect(decisions.slice(0, 60).every((d) => d.allowed)).toBe(true);
    expect(decisions.slice(0, 60).map((d) => d.remaining)).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    expect(decisions[0]).toEqual({ allowed: true, limit: 60, remaining: 59, resetEpochSeconds: Math.ceil((T0 + 60_000) / 1000) });
    expect(decisions[60]).toEqual({
      allowed: false,
      limit: 60,
      remaining: 0,
      resetEpochSeconds: Math.ceil((T0 + 60_000) / 1000),
      retryAfterSeconds: 60,
    });
  });

  it('opens at the first request, not at a clock boundary', () => {
    const limiter = new RateLimiter();
    burst(limiter, 60, T0);
    // 29.5 s later the wall-clock minute has turned, but the key's window has not.
    expect(limiter.check(free, T0 + 29_500).allowed).toBe(false);
    // Retry-After is rounded up to whole seconds, at least 1.
    expect(limiter.check(free, T0 + 58_200).retryAfterSeconds).toBe(2);
    expect(limiter.check(free, T0 + 59_999)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.check(free, T0 + 60_000)).toMatchObject({ allowed: true, remaining: 59 });
  });

  it('does not count refused requests', () => {
    const limiter = new RateLimiter();
    burst(limiter, 65, T0);
    const next = burst(limiter, 60, T0 + 60_000);
    expect(next.every((d) => d.allowed)).toBe(true);
    expect(limiter.state['sandbox-free']?.dayCount).toBe(120);
  });

  it('keeps keys apart', () => {
    const limiter = new RateLimiter();
    burst(limiter, 60, T0);
    expect(limiter.check({ key: 'sandbox-pro', perMinute: 300, perDay: 10_000 }, T0)).toMatchObject({
      allowed: true,
      limit: 300,
      remaining: 299,
    });
  });
});

describe('the day window', () => {
  it('refuses request 1001 of a Free day until the day window resets, whatever the minute says', () => {
    const limiter = new RateLimiter();
    let last: RateLimitDecision | undefined;
    for (let minute = 0; minute < 17; minute += 1) {
      const count = minute < 16 ? 60 : 40; // 16 × 60 + 40 = 1000
      last = burst(limiter, count, T0 + minute * 60_000).at(-1);
    }
    const dayReset = Math.ceil((T0 + 86_400_000) / 1000);
    expect(last).toMatchObject({ allowed: true, remaining: 0, resetEpochSeconds: dayReset });
    const refused = limiter.check(free, T0 + 20 * 60_000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetEpochSeconds: dayReset });
    expect(refused.retryAfterSeconds).toBe(Math.ceil((86_400_000 - 20 * 60_000) / 1000));
    expect(limiter.check(free, T0 + 86_400_000)).toMatchObject({ allowed: true, remaining: 59 });
  });

  it('reports the day window once fewer requests are left in it than in the minute', () => {
    const limiter = new RateLimiter();
    const small = { key: 'k', perMinute: 10, perDay: 15 };
    burst(limiter, 10, T0, small);
    const decision = limiter.check(small, T0 + 60_000);
    // Minute: 9 left; day: 4 left.
    expect(decision).toMatchObject({ allowed: true, limit: 10, remaining: 4, resetEpochSeconds: Math.ceil((T0 + 86_400_000) / 1000) });
  });
});

describe('the ban', () => {
  it('bans a key that sends more than banAfter requests after its first 429, inside the window', () => {
    const limiter = new RateLimiter();
    burst(limiter, 60, T0);
    const first = limiter.check(free, T0 + 1_000);
    expect(first).toMatchObject({ allowed: false, retryAfterSeconds: 59 });
    expect(first.banned).toBeUndefined();
    const tolerated = Array.from({ length: 10 }, (_, i) => limiter.check(free, T0 + 2_000 + i));
    expect(tolerated.every((d) => !d.allowed && d.banned === undefined)).toBe(true);
    const banned = limiter.check(free, T0 + 3_000);
    expect(banned).toEqual({
      allowed: false,
      banned: true,
      limit: 60,
      remaining: 0,
      retryAfterSeconds: 600,
      resetEpochSeconds: Math.ceil((T0 + 3_000 + 600_000) / 1000),
    });
  });

  it('keeps a banned key out for the rest of the ban, without extending it, then lets it in', () => {
    const limiter = new RateLimiter({ banAfter: 0 });
    burst(limiter, 61, T0);
    expect(limiter.check(free, T0).banned).toBe(true);
    expect(limiter.check(free, T0 + 300_000)).toMatchObject({ banned: true, retryAfterSeconds: 300 });
    expect(limiter.check(free, T0 + 599_999)).toMatchObject({ banned: true, retryAfterSeconds: 1 });
    expect(limiter.check(free, T0 + 600_000)).toMatchObject({ allowed: true, remaining: 59 });
    // The strikes are forgiven: a new limited period starts from zero.
    burst(limiter, 59, T0 + 600_000);
    expect(limiter.check(free, T0 + 600_000).banned).toBeUndefined();
  });

  it('never bans a key that waits out its Retry-After', () => {
    const limiter = new RateLimiter({ banAfter: 2 });
    let now = T0;
    for (let cycle = 0; cycle < 15; cycle += 1) {
      expect(burst(limiter, 60, now).every((d) => d.allowed)).toBe(true);
      const refused = limiter.check(free, now);
      // Two early retries are tolerated (banAfter 2)…
      limiter.check(free, now + 10);
      limiter.check(free, now + 20);
      expect(refused.allowed).toBe(false);
      now += (refused.retryAfterSeconds ?? 0) * 1000;
    }
    expect(limiter.state['sandbox-free']?.bannedUntil).toBeUndefined();
    expect(limiter.state['sandbox-free']?.dayCount).toBe(900);
  });
});

describe('state', () => {
  it('is plain JSON that can be persisted and resumed', () => {
    const limiter = new RateLimiter();
    burst(limiter, 59, T0);
    const persisted = parseRateLimitState(JSON.parse(JSON.stringify(limiter.state)));
    const resumed = new RateLimiter({ state: persisted });
    expect(resumed.check(free, T0 + 1)).toMatchObject({ allowed: true, remaining: 0 });
    expect(resumed.check(free, T0 + 2).allowed).toBe(false);
  });

  it('drops malformed persisted entries instead of failing', () => {
    expect(parseRateLimitState({ a: { minuteStart: 'x' }, b: null })).toEqual({});
    expect(parseRateLimitState([1, 2])).toEqual({});
  });

});

describe('a client that comes back at the rounded-up reset', () => {
  it('keeps its schedule: the next window starts where the last ended, so it loses no second per window', () => {
    const limiter = new RateLimiter();
    const first = burst(limiter, 60, T0).at(-1)!;
    expect(first.remaining).toBe(0);
    // Reset is rounded up to the second after T0 + 60 s; the client comes back then.
    const back = first.resetEpochSeconds * 1000 + 5;
    const next = limiter.check(free, back);
    expect(next).toMatchObject({ allowed: true, remaining: 59 });
    // This window ends exactly one minute after the last one ended, not a minute after `back`.
    expect(next.resetEpochSeconds).toBe(Math.ceil((T0 + 120_000) / 1000));
  });

  it('after a longer pause, a window opens at the request again', () => {
    const limiter = new RateLimiter();
    burst(limiter, 1, T0);
    const later = T0 + 60_000 + 2_500;
    expect(limiter.check(free, later).resetEpochSeconds).toBe(Math.ceil((later + 60_000) / 1000));
  });
});
