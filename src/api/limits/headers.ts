/** Rate-limit windows in the specification are a minute and a day; a Reset further off than this is nonsense. */
export const MAX_PLAUSIBLE_RESET_MS = 25 * 60 * 60 * 1000;
/** Longest Retry-After taken at its word: a longer one is capped, as ignoring it would retry a 429 at once. */
export const MAX_RETRY_AFTER_MS = MAX_PLAUSIBLE_RESET_MS;

/** RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must also accept. */
const IMF_FIXDATE = /^[a-z]{3}, \d{2} [a-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/i;
const RFC850_DATE = /^[a-z]{6,9}, \d{2}-[a-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/i;
const ASCTIME_DATE = /^[a-z]{3} [a-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/i;

/** An HTTP-date in one of RFC 9110's three forms, or undefined: Date.parse alone reads "1.5" or "-5" as dates in 2001. */
export function parseHttpDate(value: string | undefined): number | undefined {
  const text = value?.trim() ?? '';
  // asctime carries no zone; it is GMT, where Date.parse would assume local time.
  const ms = IMF_FIXDATE.test(text) || RFC850_DATE.test(text) ? Date.parse(text) : ASCTIME_DATE.test(text) ? Date.parse(`${text} GMT`) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** Retry-After (RFC 9110 §10.2.3), a date measured from the answer's Date; 0 or less is absent: "retry now" gets a key banned. */
export function parseRetryAfter(value: string | undefined, serverDateMs: number | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const date = parseHttpDate(text);
  // RFC 9110 allows whole seconds only; a decimal ("1.5") is taken as meant, never as "retry now".
  const ms = /^\d+(\.\d+)?$/.test(text) ? Math.ceil(Number(text) * 1000) : date === undefined ? undefined : date - (serverDateMs ?? nowMs);
  return ms === undefined || ms <= 0 ? undefined : Math.min(MAX_RETRY_AFTER_MS, ms);
}

/** `resetEpochSeconds`: when the window resets, as Unix seconds (from X-RateLimit-Reset, or the IETF RateLimit header's t=). */
export type RateHeaders = { limit?: number; remaining?: number; resetEpochSeconds?: number };

function headerNumber(value: string | undefined, fraction = false): number | undefined {
  const form = fraction ? /^\s*\d+(\.\d+)?\s*$/ : /^\s*\d+\s*$/;
  return value !== undefined && form.test(value) ? Number(value) : undefined;
}

/** X-RateLimit-Reset as Unix seconds: under 10^9 (2001) it is seconds until the reset, counted from the server's clock
 * and rounded up so every answer of one window names it alike; over 10^12 it is Unix milliseconds. */
function resetEpochSecondsOf(value: string | undefined, serverNowMs: number | undefined): number | undefined {
  const n = headerNumber(value, true);
  if (n === undefined) return undefined;
  if (n > 1e12) return n / 1000;
  if (n >= 1e9) return n;
  return serverNowMs === undefined || n === 0 ? undefined : Math.ceil(serverNowMs / 1000 + n);
}

type IetfLimit = { remaining?: number; resetSeconds?: number };

/** draft-ietf-httpapi-ratelimit-headers: `RateLimit: "default";r=0;t=30`, one item per policy (earlier drafts:
 * `RateLimit: limit=10, remaining=0, reset=30`, or RateLimit-Remaining and RateLimit-Reset headers of their own). The
 * item that binds is the one with the least remaining, then the latest reset. */
function parseIetfRateLimit(header: (name: string) => string | undefined): IetfLimit | undefined {
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

/** The window an answer describes: IETF RateLimit and RateLimit-Policy when it has them, else X-RateLimit-*. */
export function parseRateHeaders(header: (name: string) => string | undefined, serverNowMs?: number): RateHeaders {
  const ietf = parseIetfRateLimit(header);
  if (!ietf) {
    const resetEpochSeconds = resetEpochSecondsOf(header('x-ratelimit-reset'), serverNowMs);
    return withinLimit({ limit: headerNumber(header('x-ratelimit-limit')), remaining: headerNumber(header('x-ratelimit-remaining')), resetEpochSeconds });
  }
  // RateLimit-Policy's quota (q=) is the window's limit.
  const quota = /(?:^|[;,\s])q=(\d+)/.exec(header('ratelimit-policy') ?? '')?.[1];
  const resetEpochSeconds = ietf.resetSeconds && serverNowMs !== undefined ? Math.ceil(serverNowMs / 1000 + ietf.resetSeconds) : undefined;
  return withinLimit({ limit: quota === undefined ? undefined : Number(quota), remaining: ietf.remaining, resetEpochSeconds });
}

/** More left than the limit is a contradiction: the smaller is believed, as a crowd claiming the larger could meet a ban. */
function withinLimit(rate: RateHeaders): RateHeaders {
  const { limit, remaining } = rate;
  return limit !== undefined && remaining !== undefined && remaining > limit ? { ...rate, remaining: limit } : rate;
}

/** Milliseconds until a reset, measured from the server's Date when there is one; one past or absurdly far off is undefined. */
export function resetDelayMs(resetEpochSeconds: number | undefined, serverDateMs: number | undefined, nowMs: number): number | undefined {
  if (resetEpochSeconds === undefined) return undefined;
  const delay = resetEpochSeconds * 1000 - (serverDateMs ?? nowMs);
  return delay <= 0 || delay > MAX_PLAUSIBLE_RESET_MS ? undefined : delay;
}

/** The server's clock, as far as its Date headers tell it. Date is cut to the second, so the highest (Date - our clock)
 * seen is a lower bound of the skew that tightens with every answer: waits for a reset measured from it are never
 * early. */
export class ServerClock {
  private aheadMs: number | undefined;

  constructor(private readonly now: () => number) {}

  /** The server's time now, or undefined without a usable Date. */
  observe(dateHeader: string | undefined): number | undefined {
    const serverDate = parseHttpDate(dateHeader);
    if (serverDate === undefined) return undefined;
    const now = this.now();
    this.aheadMs = Math.max(this.aheadMs ?? -Infinity, serverDate - now);
    return now + this.aheadMs;
  }
}
