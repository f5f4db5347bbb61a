/**
 * The sandbox's rate limiter: pure functions of (state, key, policy, now).
 *
 * Windows. Each key has two fixed windows, a minute (`minuteMs`) and a day
 * (1440 × minuteMs). A window opens at the key's first request after the
 * previous one of that kind expired (or, within two seconds of its end, where
 * it ended: see nextWindowStart), and lasts its full length; it is not
 * aligned to clock boundaries. (Clock-aligned windows would let a burst of 61
 * requests straddle a minute boundary and pass, which makes the specification's
 * "61st request in a minute gets 429" untestable on a real clock.)
 * Every request that is let through counts once in both windows, whatever its
 * final status (400, 404 and 405 included); rejected requests (429) do not count.
 *
 * Headers.
 *   X-RateLimit-Limit      the per-minute limit of the key's plan.
 *   X-RateLimit-Remaining  requests left before a 429: the smaller of the
 *                          minute's and the day's remainder.
 *   X-RateLimit-Reset      Unix seconds (rounded up) at which the binding window
 *                          resets: while requests remain, the window with fewer
 *                          left (the minute on a tie); once none remain, the
 *                          moment requests are accepted again; during a ban, its end.
 *   Retry-After            on a 429: whole seconds until that moment, rounded up,
 *                          at least 1. Waiting it out always finds the window reset.
 *
 * Ban. The first 429 opens a "limited" period that lasts until the exhausted
 * window(s) reset. The first 429 and up to `banAfter` (default 10) more requests
 * inside that period are answered `rate_limited`; the next one, i.e. more than
 * `banAfter` requests sent after the first 429 while still limited, bans the key
 * for `banMs` (default 10 × minuteMs) and is answered `key_banned`, as is every
 * request until the ban ends (they neither extend the ban nor count). A key
 * that waits out its Retry-After starts a fresh period with no strikes, so it
 * is never banned. After a ban the strikes are cleared; a day window that is
 * still exhausted then answers `rate_limited` again and a new period begins.
 *
 * The state is a plain JSON object (epoch milliseconds and counts), so a
 * file-backed store can persist it and processes sharing a data file share counts.
 */

export interface RateLimitPolicy {
  /** Length of the "minute" window in ms (60 000 unless a test shrinks it). */
  minuteMs: number;
  /** Length of the "day" window in ms: 1440 × minuteMs. */
  dayMs: number;
  /** Requests tolerated after the first 429 while still limited; one more bans the key. */
  banAfter: number;
  /** Length of a ban in ms. */
  banMs: number;
}

export interface RateLimitPolicyOptions {
  minuteMs?: number;
  banAfter?: number;
  banMs?: number;
}

export const DEFAULT_MINUTE_MS = 60_000;
export const MINUTES_PER_DAY = 1440;
export const DEFAULT_BAN_AFTER = 10;
export const BAN_MINUTES = 10;

/** Builds a policy: day and ban lengths follow `minuteMs` unless given. */
export function rateLimitPolicy(options: RateLimitPolicyOptions = {}): RateLimitPolicy {
  const minuteMs = options.minuteMs ?? DEFAULT_MINUTE_MS;
  if (!Number.isSafeInteger(minuteMs) || minuteMs < 1) throw new RangeError(`minuteMs must be a positive integer, got ${minuteMs}`);
  const banAfter = options.banAfter ?? DEFAULT_BAN_AFTER;
  if (!Number.isSafeInteger(banAfter) || banAfter < 0) throw new RangeError(`banAfter must be a non-negative integer, got ${banAfter}`);
  const banMs = options.banMs ?? BAN_MINUTES * minuteMs;
  if (!Number.isSafeInteger(banMs) || banMs < 1) throw new RangeError(`banMs must be a positive integer, got ${banMs}`);
  return { minuteMs, dayMs: MINUTES_PER_DAY * minuteMs, banAfter, banMs };
}

/** What is recorded per key. All times are epoch milliseconds. */
export interface KeyRateState {
  minuteStart: number;
  minuteCount: number;
  dayStart: number;
  dayCount: number;
  /** End of the current limited period (set by the first 429), if one is open. */
  limitedUntil?: number;
  /** Requests sent after the first 429 of the current limited period. */
  strikes: number;
  /** End of the ban, if the key is banned. */
  bannedUntil?: number;
}

/** Per-key state, keyed by API key. */
export type RateLimitState = Record<string, KeyRateState>;

export interface KeyLimits {
  perMinute: number;
  perDay: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** X-RateLimit-Limit: the per-minute limit. */
  limit: number;
  /** X-RateLimit-Remaining. */
  remaining: number;
  /** X-RateLimit-Reset: Unix seconds. */
  resetEpochSeconds: number;
  /** Retry-After in whole seconds (≥ 1); set when not allowed. */
  retryAfterSeconds?: number;
  /** True when refused because the key is banned (code `key_banned`). */
  banned?: boolean;
}

export interface RateLimitOutcome {
  /** The key's new state (a new object; the input is not modified). */
  state: KeyRateState;
  decision: RateLimitDecision;
}

/** Decides one request of a key and returns its new state. Pure. */
export function checkRateLimit(
  previous: KeyRateState | undefined,
  limits: KeyLimits,
  policy: RateLimitPolicy,
  now: number,
): RateLimitOutcome {
  const state: KeyRateState = previous
    ? { ...previous }
    : { minuteStart: now, minuteCount: 0, dayStart: now, dayCount: 0, strikes: 0 };

  if (state.bannedUntil !== undefined) {
    if (now < state.bannedUntil) {
      return { state, decision: refusal(limits, state.bannedUntil, now, true) };
    }
    // The ban is over: the strikes that led to it are forgiven.
    delete state.bannedUntil;
    delete state.limitedUntil;
    state.strikes = 0;
  }

  if (now >= state.minuteStart + policy.minuteMs) {
    state.minuteStart = nextWindowStart(state.minuteStart + policy.minuteMs, now);
    state.minuteCount = 0;
  }
  if (now >= state.dayStart + policy.dayMs) {
    state.dayStart = nextWindowStart(state.dayStart + policy.dayMs, now);
    state.dayCount = 0;
  }
  if (state.limitedUntil !== undefined && now >= state.limitedUntil) {
    // The key waited out its Retry-After: a fresh start.
    delete state.limitedUntil;
    state.strikes = 0;
  }

  const minuteReset = state.minuteStart + policy.minuteMs;
  const dayReset = state.dayStart + policy.dayMs;
  const minuteExhausted = state.minuteCount >= limits.perMinute;
  const dayExhausted = state.dayCount >= limits.perDay;

  if (minuteExhausted || dayExhausted) {
    const acceptedAgainAt = Math.max(minuteExhausted ? minuteReset : 0, dayExhausted ? dayReset : 0);
    if (state.limitedUntil === undefined) {
      state.limitedUntil = acceptedAgainAt;
      state.strikes = 0;
    } else {
      state.limitedUntil = acceptedAgainAt;
      state.strikes += 1;
      if (state.strikes > policy.banAfter) {
        state.bannedUntil = now + policy.banMs;
        return { state, decision: refusal(limits, state.bannedUntil, now, true) };
      }
    }
    return { state, decision: refusal(limits, acceptedAgainAt, now, false) };
  }

  state.minuteCount += 1;
  state.dayCount += 1;
  const minuteLeft = limits.perMinute - state.minuteCount;
  const dayLeft = limits.perDay - state.dayCount;
  const remaining = Math.min(minuteLeft, dayLeft);
  let resetAt: number;
  if (remaining === 0) {
    resetAt = Math.max(minuteLeft === 0 ? minuteReset : 0, dayLeft === 0 ? dayReset : 0);
  } else {
    resetAt = dayLeft < minuteLeft ? dayReset : minuteReset;
  }
  return {
    state,
    decision: { allowed: true, limit: limits.perMinute, remaining, resetEpochSeconds: Math.ceil(resetAt / 1000) },
  };
}

/**
 * X-RateLimit-Reset is in whole seconds, rounded up, so a client that waits
 * for it comes back up to a second after the window really ended, plus its
 * own latency. Such a key keeps its schedule (the next window starts where the
 * last one ended) rather than losing that second in every window; after a
 * longer pause a new window opens at the request, as at the first one.
 */
const KEEP_SCHEDULE_MS = 2000;

function nextWindowStart(previousEnd: number, now: number): number {
  return now - previousEnd < KEEP_SCHEDULE_MS ? previousEnd : now;
}

function refusal(limits: KeyLimits, until: number, now: number, banned: boolean): RateLimitDecision {
  return {
    allowed: false,
    limit: limits.perMinute,
    remaining: 0,
    resetEpochSeconds: Math.ceil(until / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)),
    ...(banned ? { banned: true } : {}),
  };
}

/**
 * Checks a request against a whole state map, replacing the key's entry in
 * place. This is the step a store runs inside its lock.
 */
export function applyRateLimit(
  state: RateLimitState,
  key: KeyLimits & { key: string },
  policy: RateLimitPolicy,
  now: number,
): RateLimitDecision {
  const outcome = checkRateLimit(state[key.key], key, policy, now);
  state[key.key] = outcome.state;
  return outcome.decision;
}

/** Reads a persisted state leniently: entries that are not well formed are dropped (they only hold counts). */
export function parseRateLimitState(value: unknown): RateLimitState {
  const state: RateLimitState = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return state;
  for (const [key, entry] of Object.entries(value)) {
    if (isKeyRateState(entry)) state[key] = entry;
  }
  return state;
}

function isKeyRateState(value: unknown): value is KeyRateState {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  const isCount = (field: unknown): boolean => typeof field === 'number' && Number.isSafeInteger(field) && field >= 0;
  const isOptionalTime = (field: unknown): boolean => field === undefined || isCount(field);
  return (
    isCount(entry.minuteStart) &&
    isCount(entry.minuteCount) &&
    isCount(entry.dayStart) &&
    isCount(entry.dayCount) &&
    isCount(entry.strikes) &&
    isOptionalTime(entry.limitedUntil) &&
    isOptionalTime(entry.bannedUntil)
  );
}
