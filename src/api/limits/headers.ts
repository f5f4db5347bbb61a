/**
 * What an answer's headers say about the limits, as values: Retry-After, the IETF RateLimit and RateLimit-Policy
 * headers, X-RateLimit-*, HTTP-dates, and the server's clock from Date. Nothing here decides what to do with them.
 */

/** Rate-limit windows in the specification are a minute and a day; a Reset further off than this is nonsense. */
export const MAX_PLAUSIBLE_RESET_MS = 25 * 60 * 60 * 1000;
/**
 * Longest Retry-After taken at its word. A longer one is capped rather than ignored (that would retry a 429 at once);
 * uncapped, a Retry-After of 10^14 seconds made every later run fail with "Invalid time value".
 */
export const MAX_RETRY_AFTER_MS = MAX_PLAUSIBLE_RESET_MS;

type HeaderOf = (name: string) => string | undefined;

/** RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must also accept. */
const IMF_FIXDATE = /^[a-z]{3}, \d{2} [a-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/i;
const RFC850_DATE = /^[a-z]{6,9}, \d{2}-[a-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/i;
const ASCTIME_DATE = /^[a-z]{3} [a-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/i;

/** An HTTP-date in one of RFC 9110's three forms, or undefined: Date.parse alone reads "1.5" or "-5" as dates in 2001. */
export function parseHttpDate(value: string | undefined): number | undefined {
  const text = value?.trim() ?? '';
  let ms = Number.NaN;
  if (IMF_FIXDATE.test(text) || RFC850_DATE.test(text)) ms = Date.parse(text);
  // asctime carries no zone; it is GMT, where Date.parse would assume local time.
  else if (ASCTIME_DATE.test(text)) ms = Date.parse(`${text} GMT`);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Retry-After: delta-seconds or an HTTP-date (RFC 9110 §10.2.3), a date measured against the answer's own Date when
 * there is one. A value of 0 or less, or one that does not parse, is absent: "retry now" after a 429 gets a key banned.
 */
export function parseRetryAfter(value: string | undefined, serverDateMs: number | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  let ms: number | undefined;
  // RFC 9110 allows whole seconds only; a decimal ("1.5") is taken as meant, never as "retry now".
  if (/^\d+(\.\d+)?$/.test(text)) ms = Math.ceil(Number(text) * 1000);
  else {
    const at = parseHttpDate(text);
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

/** A header's non-negative integer (or, with `fraction`, decimal). */
function headerNumber(value: string | undefined, fraction = false): number | undefined {
  const form = fraction ? /^\s*\d+(\.\d+)?\s*$/ : /^\s*\d+\s*$/;
  return value !== undefined && form.test(value) ? Number(value) : undefined;
}

/**
 * X-RateLimit-Reset as Unix seconds, whatever form the server chose: under 10^9 (2001) seconds until the reset, over
 * 10^12 Unix milliseconds, in between Unix seconds; a fraction is taken as meant. A delta is counted from the
 * server's clock and rounded up to the second, so every answer of one window names it alike.
 */
function resetEpochSecondsOf(value: string | undefined, serverNowMs: number | undefined): number | undefined {
  const n = headerNumber(value, true);
  if (n === undefined) return undefined;
  if (n > 1e12) return n / 1000;
  if (n >= 1e9) return n;
  return serverNowMs === undefined || n === 0 ? undefined : Math.ceil(serverNowMs / 1000 + n);
}

/** One item of the IETF RateLimit header: r= what remains, t= seconds until the reset. */
interface IetfLimit {
  remaining?: number;
  resetSeconds?: number;
}

/**
 * draft-ietf-httpapi-ratelimit-headers: `RateLimit: "default";r=0;t=30`, one item per policy (earlier drafts:
 * `RateLimit: limit=10, remaining=0, reset=30`, or RateLimit-Remaining and RateLimit-Reset headers of their own).
 * The item that binds is the one with the least remaining, then the latest reset.
 */
function parseIetfRateLimit(header: HeaderOf): IetfLimit | undefined {
  const param = (item: string, names: string[]) => {
    for (const name of names) {
      const match = new RegExp(`(?:^|[;,\\s])${name}=(\\d+(?:\\.\\d+)?)(?=$|[;,\\s])`).exec(item);
      if (match) return Number(match[1]);
    }
    return undefined;
  };
  const given = (item: IetfLimit) => item.remaining !== undefined || item.resetSeconds !== undefined;
  const field = header('ratelimit');
  // Structured-field items are separated by commas; the older form puts its parameters in one item.
  const parts = field === undefined ? [] : /(^|[;,\s])t=/.test(field) ? field.split(',') : [field];
  const found = parts.map((part) => ({ remaining: param(part, ['r', 'remaining']), resetSeconds: param(part, ['t', 'reset']) })).filter(given);
  const own = () => ({ remaining: headerNumber(header('ratelimit-remaining')), resetSeconds: headerNumber(header('ratelimit-reset'), true) });
  const items = found.length > 0 ? found : [own()].filter(given);
  if (items.length === 0) return undefined;
  const left = (item: IetfLimit) => item.remaining ?? Number.POSITIVE_INFINITY;
  const least = Math.min(...items.map(left));
  const resets = items.filter((item) => left(item) === least).flatMap((item) => item.resetSeconds ?? []);
  return { remaining: Number.isFinite(least) ? least : undefined, resetSeconds: resets.length > 0 ? Math.max(...resets) : undefined };
}

/**
 * The window an answer describes: the IETF RateLimit and RateLimit-Policy headers when it carries them, else
 * X-RateLimit-*. `serverNowMs` (the server's clock) turns a reset given as seconds from now into Unix seconds.
 */
export function parseRateHeaders(header: HeaderOf, serverNowMs?: number): RateHeaders {
  const ietf = parseIetfRateLimit(header);
  if (!ietf) {
    const resetEpochSeconds = resetEpochSecondsOf(header('x-ratelimit-reset'), serverNowMs);
    return { limit: headerNumber(header('x-ratelimit-limit')), remaining: headerNumber(header('x-ratelimit-remaining')), resetEpochSeconds };
  }
  // RateLimit-Policy's quota (q=) is the window's limit.
  const quota = /(?:^|[;,\s])q=(\d+)/.exec(header('ratelimit-policy') ?? '')?.[1];
  const resetEpochSeconds = ietf.resetSeconds && serverNowMs !== undefined ? Math.ceil(serverNowMs / 1000 + ietf.resetSeconds) : undefined;
  return { limit: quota === undefined ? undefined : Number(quota), remaining: ietf.remaining, resetEpochSeconds };
}

/**
 * Milliseconds from now until a reset, which is on the server's clock: measured from its Date when there is one (Date
 * has one-second resolution; without it, our own clock). A reset past or absurdly far off is undefined, never a hang.
 */
export function resetDelayMs(resetEpochSeconds: number | undefined, serverDateMs: number | undefined, nowMs: number): number | undefined {
  if (resetEpochSeconds === undefined) return undefined;
  const delay = resetEpochSeconds * 1000 - (serverDateMs ?? nowMs);
  return delay <= 0 || delay > MAX_PLAUSIBLE_RESET_MS ? undefined : delay;
}

/**
 * The server's clock, as far as its Date headers tell it. Date is cut to the second, so one answer says only that the
 * server's clock is at least Date; the highest (Date - our clock) seen in this run is a lower bound of the skew that
 * tightens with every answer. Measured from it, waits for a reset are never early.
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
