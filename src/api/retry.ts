/**
 * Retry decisions as pure functions of values, so a table of cases tests them
 * (after stripe-node's _shouldRetry / _getSleepTimeInMS).
 */

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 30_000;
/** Rate-limit windows in the specification are a minute and a day; a Reset further off than this is nonsense. */
export const MAX_PLAUSIBLE_RESET_MS = 25 * 60 * 60 * 1000;
/**
 * Longest Retry-After taken at its word. A longer one is capped rather than
 * ignored: ignoring it would mean retrying a 429 at once. Without a cap a
 * Retry-After of 10^14 seconds made `new Date(retryAt)` invalid, so every
 * later run failed with "Invalid time value" while the state file held it.
 */
export const MAX_RETRY_AFTER_MS = MAX_PLAUSIBLE_RESET_MS;

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

/** RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must also accept. */
const IMF_FIXDATE = /^[a-z]{3}, \d{2} [a-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/i;
const RFC850_DATE = /^[a-z]{6,9}, \d{2}-[a-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/i;
const ASCTIME_DATE = /^[a-z]{3} [a-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/i;

/**
 * Parses an HTTP-date; undefined if invalid. Only the three forms of RFC 9110
 * are accepted: Date.parse alone reads "1.5" or "-5" as dates in 2001, which
 * turned such a Retry-After into an immediate retry after a 429.
 */
export function parseHttpDate(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  let ms: number;
  if (IMF_FIXDATE.test(text) || RFC850_DATE.test(text)) ms = Date.parse(text);
  // asctime carries no zone; it is GMT, where Date.parse would assume local time.
  else if (ASCTIME_DATE.test(text)) ms = Date.parse(`${text} GMT`);
  else return undefined;
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Retry-After is delta-seconds or an HTTP-date (RFC 9110 §10.2.3). A date is
 * measured against the response's own Date header when there is one, so a
 * client whose clock is off still waits the interval the server meant.
 */
export function parseRetryAfter(value: string | undefined, serverDateMs: number | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  // RFC 9110 allows whole seconds only; a decimal ("1.5") is taken as meant, never as "retry now".
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(MAX_RETRY_AFTER_MS, Math.ceil(Number(trimmed) * 1000));
  const at = parseHttpDate(trimmed);
  if (at === undefined) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - (serverDateMs ?? nowMs)));
}

export interface RateHeaders {
  limit?: number;
  remaining?: number;
  /** X-RateLimit-Reset: Unix seconds. */
  resetEpochSeconds?: number;
}

function nonNegativeInt(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

export function parseRateHeaders(get: (name: string) => string | undefined): RateHeaders {
  return {
    limit: nonNegativeInt(get('x-ratelimit-limit')),
    remaining: nonNegativeInt(get('x-ratelimit-remaining')),
    resetEpochSeconds: nonNegativeInt(get('x-ratelimit-reset')),
  };
}

/**
 * Milliseconds from now until X-RateLimit-Reset on our own clock. The reset is
 * on the server's clock, so it is shifted by the skew seen in the Date header.
 * A reset in the past or absurdly far off is ignored (undefined), never a hang.
 */
export function resetDelayMs(resetEpochSeconds: number | undefined, serverDateMs: number | undefined, nowMs: number): number | undefined {
  if (resetEpochSeconds === undefined) return undefined;
  const serverNow = serverDateMs ?? nowMs;
  // Date has one-second resolution; without it we trust our own clock.
  const delay = resetEpochSeconds * 1000 - serverNow;
  if (delay <= 0 || delay > MAX_PLAUSIBLE_RESET_MS) return undefined;
  return delay;
}
