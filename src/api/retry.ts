/**
 * Retry decisions as pure functions of values, so a table of cases tests them
 * (after stripe-node's _shouldRetry / _getSleepTimeInMS).
 */

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 30_000;
/** A 429 that names no usable time holds everything on the key at least this long. */
export const HOLD_MIN_MS = 5_000;
/** Holds double while the probe after each meets a 429, up to this (the specification's short window is a minute). */
export const HOLD_CAP_MS = 60_000;

/**
 * The hold after a 429 without a usable time: the larger of HOLD_MIN_MS and
 * what is left of the current window when one is known; after a hold whose
 * probe met a 429 again (`previousHoldMs`), twice that one, up to HOLD_CAP_MS.
 * Never random: jitter would release the waiting requests one by one into a
 * limit that is still closed.
 */
export function holdAfterTimeless429(previousHoldMs: number | undefined, windowLeftMs: number | undefined): number {
  const start = Math.max(HOLD_MIN_MS, windowLeftMs ?? 0);
  return previousHoldMs === undefined ? start : Math.max(start, Math.min(HOLD_CAP_MS, previousHoldMs * 2));
}

/** What one attempt came to. `sent` tells whether the request may have reached the server. */
export type AttemptOutcome =
  | { kind: 'response'; status: number }
  /** `retryable: false`: trying again cannot help (nothing listens on this machine's port). */
  | { kind: 'network'; sent: boolean; retryable?: boolean };

/**
 * A 429 was not processed, so any method may be retried after it. A GET is
 * idempotent, so it is also retried after a gateway error or a network failure.
 * A POST that may have been received is never sent again: it could create the
 * animal twice. One whose connection was never made (refused) can be.
 */
export function shouldRetry(outcome: AttemptOutcome, retriesDone: number, maxRetries: number, method: string): boolean {
  if (retriesDone >= maxRetries) return false;
  if (outcome.kind === 'response') {
    if (outcome.status === 429) return true;
    return method === 'GET' && (outcome.status === 502 || outcome.status === 503 || outcome.status === 504);
  }
  if (outcome.retryable === false) return false;
  return method === 'GET' || !outcome.sent;
}

/**
 * How long to wait before the next attempt: exactly Retry-After when the
 * server gave one, otherwise exponential backoff with full jitter
 * (AWS architecture blog: random between 0 and min(cap, base * 2^n)).
 */
export function delayFor(retryAfterMs: number | undefined, retriesDone: number, random: () => number): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retriesDone);
  return Math.floor(random() * ceiling);
}
