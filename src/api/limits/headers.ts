/**
 * What an answer's headers say about the limits, as values: Retry-After,
 * the IETF RateLimit and RateLimit-Policy headers, X-RateLimit-*, HTTP-dates,
 * and the server's clock from Date. Nothing here decides what to do with them
 * (rules.ts and the wait policy do).
 */

/** Rate-limit windows in the specification are a minute and a day; a Reset further off than this is nonsense. */
export const MAX_PLAUSIBLE_RESET_MS = 25 * 60 * 60 * 1000;
/**
 * Longest Retry-After taken at its word. A longer one is capped rather than
 * ignored: ignoring it would mean retrying a 429 at once. Without a cap a
 * Retry-After of 10^14 seconds made `new Date(retryAt)` invalid, so every
 * later run failed with "Invalid time value" while the state file held it.
 */
export const MAX_RETRY_AFTER_MS = MAX_PLAUSIBLE_RESET_MS;

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
 * client whose clock is off still waits the interval the server meant. A
 * value of 0 or less (a date already past) or one that does not parse is
 * absent: "retry now" after a 429 is how a key gets banned.
 */
export function parseRetryAfter(value: string | undefined, serverDateMs: number | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  let ms: number | undefined;
  // RFC 9110 allows whole seconds only; a decimal ("1.5") is taken as meant, never as "retry now".
  if (/^\d+(\.\d+)?$/.test(trimmed)) ms = Math.ceil(Number(trimmed) * 1000);
  else {
    const at = parseHttpDate(trimmed);
    if (at !== undefined) ms = at - (serverDateMs ?? nowMs);
  }
  return ms === undefined || ms <= 0 ? undefined : Math.min(MAX_RETRY_AFTER_MS, ms);
}

export interface RateHeaders {
  limit?: number;
  remaining?: number;
  /** When the window resets, as Unix seconds (read from X-RateLimit-Reset, or the IETF RateLimit header's t=). */
  resetEpochSeconds?: number;
}

function nonNegativeInt(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

function nonNegativeNumber(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}

/** Below this an X-RateLimit-Reset is seconds until the reset (10^9 s is 2001-09-09). */
export const RESET_DELTA_BELOW = 1e9;
/** Above this an X-RateLimit-Reset is Unix milliseconds (10^12 s is 33,000 years away). */
export const RESET_MS_ABOVE = 1e12;

/**
 * X-RateLimit-Reset as Unix seconds, whatever form the server chose: under
 * 10^9 it is seconds until the reset (GitHub sends Unix seconds, others the
 * delta), over 10^12 Unix milliseconds, in between Unix seconds; a fraction is
 * taken as meant. A delta is counted from the server's clock and rounded up to
 * the second, so every answer of one window names it alike.
 */
export function resetEpochSecondsOf(value: string | undefined, serverNowMs: number | undefined): number | undefined {
  const n = nonNegativeNumber(value);
  if (n === undefined) return undefined;
  if (n > RESET_MS_ABOVE) return n / 1000;
  if (n >= RESET_DELTA_BELOW) return n;
  return serverNowMs === undefined || n === 0 ? undefined : Math.ceil(serverNowMs / 1000 + n);
}

/** One item of the IETF RateLimit header: r= what remains, t= seconds until the reset. */
interface IetfLimit {
  remaining?: number;
  resetSeconds?: number;
}

/**
 * draft-ietf-httpapi-ratelimit-headers: `RateLimit: "default";r=0;t=30`, one
 * item per policy (earlier drafts: `RateLimit: limit=10, remaining=0, reset=30`,
 * or RateLimit-Remaining and RateLimit-Reset headers of their own). The item
 * that binds is the one with the least remaining, then the latest reset.
 */
export function parseIetfRateLimit(get: (name: string) => string | undefined): IetfLimit | undefined {
  const field = get('ratelimit');
  const items: IetfLimit[] = [];
  if (field !== undefined) {
    const param = (item: string, names: string[]) => {
      for (const name of names) {
        const match = new RegExp(`(?:^|[;,\\s])${name}=(\\d+(?:\\.\\d+)?)(?=$|[;,\\s])`).exec(item);
        if (match) return Number(match[1]);
      }
      return undefined;
    };
    // Structured-field items are separated by commas; the older form puts its parameters in one item.
    const parts = /(^|[;,\s])t=/.test(field) ? field.split(',') : [field];
    for (const part of parts) {
      const item = { remaining: param(part, ['r', 'remaining']), resetSeconds: param(part, ['t', 'reset']) };
      if (item.remaining !== undefined || item.resetSeconds !== undefined) items.push(item);
    }
  }
  if (items.length === 0) {
    const item = { remaining: nonNegativeInt(get('ratelimit-remaining')), resetSeconds: nonNegativeNumber(get('ratelimit-reset')) };
    if (item.remaining === undefined && item.resetSeconds === undefined) return undefined;
    items.push(item);
  }
  const least = Math.min(...items.map((item) => item.remaining ?? Number.POSITIVE_INFINITY));
  const binding = items.filter((item) => (item.remaining ?? Number.POSITIVE_INFINITY) === least);
  const resets = binding.map((item) => item.resetSeconds).filter((t): t is number => t !== undefined);
  return { remaining: Number.isFinite(least) ? least : undefined, resetSeconds: resets.length > 0 ? Math.max(...resets) : undefined };
}

/** RateLimit-Policy's quota (q=), the limit of the window. */
function ietfQuota(get: (name: string) => string | undefined): number | undefined {
  const match = /(?:^|[;,\s])q=(\d+)/.exec(get('ratelimit-policy') ?? '');
  return match ? Number(match[1]) : undefined;
}

/**
 * The window an answer describes: the IETF RateLimit and RateLimit-Policy
 * headers when it carries them, else X-RateLimit-*. `serverNowMs` (the server's clock)
 * turns a reset given as seconds from now into Unix seconds.
 */
export function parseRateHeaders(get: (name: string) => string | undefined, serverNowMs?: number): RateHeaders {
  const ietf = parseIetfRateLimit(get);
  if (ietf) {
    const resetEpochSeconds = ietf.resetSeconds && serverNowMs !== undefined ? Math.ceil(serverNowMs / 1000 + ietf.resetSeconds) : undefined;
    return { limit: ietfQuota(get), remaining: ietf.remaining, resetEpochSeconds };
  }
  return {
    limit: nonNegativeInt(get('x-ratelimit-limit')),
    remaining: nonNegativeInt(get('x-ratelimit-remaining')),
    resetEpochSeconds: resetEpochSecondsOf(get('x-ratelimit-reset'), serverNowMs),
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

/**
 * The server's clock, as far as its Date headers tell it. Date is cut to the
 * second, so one answer says only that the server's clock is at least Date;
 * the highest (Date - our clock) seen in this run is a lower bound of the skew
 * that tightens with every answer. Measured from it, waits for a reset are
 * never early, and in a long import no longer up to a second late.
 */
export class ServerClock {
  /** The lower bound of (server clock - ours), once one Date header has been seen. */
  private aheadMs: number | undefined;

  constructor(private readonly now: () => number) {}

  /** Learns from one answer's Date header; returns the server's time now, or undefined without a usable Date. */
  observe(dateHeader: string | undefined): number | undefined {
    const serverDate = parseHttpDate(dateHeader);
    if (serverDate === undefined) return undefined;
    const now = this.now();
    this.aheadMs = Math.max(this.aheadMs ?? -Infinity, serverDate - now);
    return now + this.aheadMs;
  }
}
