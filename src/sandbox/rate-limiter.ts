/**
 * The plans' rules (docs/sandbox.md, "Windows" and "The ban"), pure functions of (state, limits, policy, now). Windows open
 * at a key's first request, so a burst of 61 cannot straddle a boundary.
 */

export interface RateLimitPolicy {
  minuteMs: number;
  dayMs: number;
  /** Requests tolerated after the first 429 while still limited; one more bans the key. */
  banAfter: number;
  banMs: number;
}

export type RateLimitPolicyOptions = Partial<Pick<RateLimitPolicy, 'minuteMs' | 'banAfter' | 'banMs'>>;

export function rateLimitPolicy(options: RateLimitPolicyOptions = {}): RateLimitPolicy {
  const minuteMs = options.minuteMs ?? 60_000;
  const policy = { minuteMs, dayMs: 1440 * minuteMs, banAfter: options.banAfter ?? 10, banMs: options.banMs ?? 10 * minuteMs };
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isSafeInteger(value) || value < (name === 'banAfter' ? 0 : 1)) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  return policy;
}

/** Per key, in epoch milliseconds and counts. */
export interface KeyRateState {
  minuteStart: number;
  minuteCount: number;
  dayStart: number;
  dayCount: number;
  /** End of the limited period the first 429 opened. */
  limitedUntil?: number;
  /** Requests sent after the first 429 of the limited period. */
  strikes: number;
  bannedUntil?: number;
}

export type RateLimitState = Record<string, KeyRateState>;

export interface KeyLimits {
  perMinute: number;
  perDay: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetEpochSeconds: number;
  /** When refused: Retry-After in whole seconds (≥ 1), and whether the key is banned (`key_banned`). */
  retryAfterSeconds?: number;
  banned?: boolean;
}

/** Decides one request of a key: its new state (a copy) and the decision. */
export function checkRateLimit(
  previous: KeyRateState | undefined,
  limits: KeyLimits,
  policy: RateLimitPolicy,
  now: number,
): { state: KeyRateState; decision: RateLimitDecision } {
  const state: KeyRateState = previous ? { ...previous } : { minuteStart: now, minuteCount: 0, dayStart: now, dayCount: 0, strikes: 0 };
  if (state.bannedUntil !== undefined && now < state.bannedUntil) return { state, decision: refusal(limits, state.bannedUntil, now, true) };
  // A ban that is over, or a limited period waited out: the strikes are forgiven.
  if (state.bannedUntil !== undefined || (state.limitedUntil !== undefined && now >= state.limitedUntil)) {
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
  const minuteReset = state.minuteStart + policy.minuteMs;
  const dayReset = state.dayStart + policy.dayMs;
  // When the windows with none left reset (0 while both have some).
  const emptyUntil = (minuteLeft: number, dayLeft: number): number => Math.max(minuteLeft <= 0 ? minuteReset : 0, dayLeft <= 0 ? dayReset : 0);

  const acceptedAgainAt = emptyUntil(limits.perMinute - state.minuteCount, limits.perDay - state.dayCount);
  if (acceptedAgainAt > 0) {
    state.strikes = state.limitedUntil === undefined ? 0 : state.strikes + 1;
    state.limitedUntil = acceptedAgainAt;
    if (state.strikes <= policy.banAfter) return { state, decision: refusal(limits, acceptedAgainAt, now, false) };
    state.bannedUntil = now + policy.banMs;
    return { state, decision: refusal(limits, state.bannedUntil, now, true) };
  }

  state.minuteCount += 1;
  state.dayCount += 1;
  const minuteLeft = limits.perMinute - state.minuteCount;
  const dayLeft = limits.perDay - state.dayCount;
  const remaining = Math.min(minuteLeft, dayLeft);
  // The binding window: the one with fewer left (the minute on a tie); once none are left, when requests are accepted again.
  const resetAt = remaining === 0 ? emptyUntil(minuteLeft, dayLeft) : dayLeft < minuteLeft ? dayReset : minuteReset;
  return { state, decision: { allowed: true, limit: limits.perMinute, remaining, resetEpochSeconds: Math.ceil(resetAt / 1000) } };
}

/**
 * X-RateLimit-Reset is rounded up to a second, so a client that waits for it comes back up to a second late: such a key
 * keeps its schedule rather than losing that second in every window; after a longer pause a new window opens.
 */
function nextWindowStart(previousEnd: number, now: number): number {
  return now - previousEnd < 2000 ? previousEnd : now;
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

export function applyRateLimit(state: RateLimitState, key: KeyLimits & { key: string }, policy: RateLimitPolicy, now: number): RateLimitDecision {
  const outcome = checkRateLimit(state[key.key], key, policy, now);
  state[key.key] = outcome.state;
  return outcome.decision;
}

/** A persisted state read leniently: entries that are not well formed are dropped (they only hold counts). */
export function parseRateLimitState(value: unknown): RateLimitState {
  const isTime = (field: unknown): boolean => Number.isSafeInteger(field) && (field as number) >= 0;
  const fields = ['minuteStart', 'minuteCount', 'dayStart', 'dayCount', 'strikes'];
  const wellFormed = (entry: Record<string, unknown>): boolean =>
    fields.every((field) => isTime(entry[field])) && [entry.limitedUntil, entry.bannedUntil].every((field) => field === undefined || isTime(field));
  const entries = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.entries(value) : [];
  return Object.fromEntries(entries.filter(([, entry]) => typeof entry === 'object' && entry !== null && wellFormed(entry)));
}
