import type { WaitKind, WaitStop } from '../errors';
import type { GateDecision } from './limits/rules';

export type { WaitKind, WaitStop };

/**
 * The one model of waiting: every wait the HTTP core makes is named and
 * decided here, from the table in the README ("Rate limits"). The send loop
 * (client.ts) asks; these functions take values and return values. What a
 * person reads of a wait or a stop is worded in output/waits.ts.
 *
 *   kind           when                                  bound
 *   retry_after    after a 429 (or a GET's 503) with     --max-wait
 *                  Retry-After: exactly until then,
 *                  never later because of that 429's
 *                  X-RateLimit-Remaining/Reset
 *   ban            a 429 with code key_banned: until its  --max-wait; a second ban ends it
 *                  Retry-After; retried once at most
 *   minute_window  the window is used up and reopens      single command: --max-wait;
 *                  within MINUTE_WINDOW_MAX_MS            bulk import: none (it is the pace)
 *   day_quota      the window reopens later than that     --max-wait
 *   backoff        a 5xx or a network error: exponential  --max-wait
 *                  backoff with full jitter; a 429 that
 *                  names no usable time: a hold of every
 *                  request on the key (see
 *                  holdAfterTimeless429), never jitter
 *   probe          a request waits for another's answer  none (milliseconds)
 *                  to learn the new window, or whether
 *                  a hold's limit has reopened
 *
 * A single command's waits add up: --max-wait bounds their total. A wait
 * that would go past it is not started: the command ends at once (exit 5)
 * saying when to try again. In a bulk import every request has its own
 * --max-wait for the waits that count.
 */

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 30_000;

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
 * (After stripe-node's _shouldRetry.)
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

/**
 * The core's wall clock: the machine's time read once, then moved on by the
 * monotonic clock. A step of the machine's clock (NTP, a user, a VM resumed)
 * during a run then neither lengthens nor shortens a wait, and no time this
 * process stores is off by the step. The machine's clock is still what the
 * server's times (Reset, HTTP-dates) are compared with at the start.
 */
export function steadyClock(wallNow: () => number, monotonic: () => number): () => number {
  const wallAtStart = wallNow();
  const monotonicAtStart = monotonic();
  // Whole milliseconds, as Date.now() reads: stored times and traces stay integers.
  return () => wallAtStart + Math.floor(monotonic() - monotonicAtStart);
}

/** A window that reopens within this long is the plan's minute; one further off is the day's quota. */
export const MINUTE_WINDOW_MAX_MS = 2 * 60_000;

/** The machine-readable code of a stop after a wait of this kind. */
export function codeFor(kind: WaitKind): 'rate_limited' | 'quota_exhausted' | 'key_banned' {
  if (kind === 'ban') return 'key_banned';
  return kind === 'day_quota' ? 'quota_exhausted' : 'rate_limited';
}

/** An exhausted window, named by how far off its reset is. */
export function windowKind(until: number, now: number): 'minute_window' | 'day_quota' {
  return until - now > MINUTE_WINDOW_MAX_MS ? 'day_quota' : 'minute_window';
}

/** What the shared gate's refusal is waiting for. */
export function gateWaitKind(decision: Extract<GateDecision, { go: false }>, now: number): WaitKind {
  switch (decision.reason) {
    case 'probe':
      return 'probe';
    case 'key_banned':
      return 'ban';
    case 'hold':
      return 'backoff';
    case 'rate_limited':
      return 'retry_after';
    default:
      return windowKind(decision.until, now);
  }
}

/** Whether a wait of this kind draws on --max-wait (`paced`: a bulk import's request). */
export function countsTowardMaxWait(kind: WaitKind, paced: boolean): boolean {
  if (kind === 'probe') return false;
  return !(paced && kind === 'minute_window');
}

/** --max-wait and what has been waited against it so far. */
export interface WaitBudget {
  maxWaitMs: number;
  waitedMs: number;
}

/** Whether a wait of `ms` may start: a counted one must fit in what is left of --max-wait (0: never wait). */
export function fitsBudget(kind: WaitKind, ms: number, budget: WaitBudget, paced: boolean): boolean {
  if (!countsTowardMaxWait(kind, paced)) return true;
  if (ms <= 0) return true;
  return budget.maxWaitMs > 0 && budget.waitedMs + ms <= budget.maxWaitMs;
}

/** What the last attempt came to, as far as waiting is concerned. */
export interface AttemptReport {
  outcome: AttemptOutcome;
  /** A 429's or a 503's Retry-After in ms (a usable one: more than 0). */
  retryAfterMs?: number;
  /** A 429 without Retry-After: ms until the window's reset, when the answer named one. */
  resetInMs?: number;
  /** A 429 that named no usable time: ms until the hold it started (or joined) ends. */
  holdMs?: number;
  /** A 429 with code key_banned. */
  banned?: boolean;
}

export interface RetryState {
  retriesDone: number;
  maxRetries: number;
  method: string;
  /** Bans this send has met so far: key_banned answers, the last one included, and a ban it waited out before sending. */
  bans: number;
}

export type RetryPlan = { retry: true; kind: WaitKind; ms: number } | { retry: false; kind?: WaitKind; ms?: number };

/** Whether to try again after a failed attempt, after how long, and whether --max-wait allows it. */
export function planRetry(report: AttemptReport, state: RetryState, budget: WaitBudget, paced: boolean, random: () => number): RetryPlan {
  if (!shouldRetry(report.outcome, state.retriesDone, state.maxRetries, state.method)) return { retry: false };
  // A ban is waited out once; a second one means the key is still banned: stop rather than risk a longer one.
  if (report.banned && state.bans > 1) return { retry: false };
  let kind: WaitKind;
  let ms: number;
  if (report.retryAfterMs !== undefined) {
    // The server's word: exactly Retry-After, whatever X-RateLimit-Reset says.
    kind = report.banned ? 'ban' : 'retry_after';
    ms = report.retryAfterMs;
  } else if (report.resetInMs !== undefined) {
    // Without Retry-After: the window's reset the answer named, which then is what is waited for.
    ms = report.resetInMs;
    kind = report.banned ? 'ban' : windowKind(report.resetInMs, 0);
  } else if (report.holdMs !== undefined) {
    ms = report.holdMs;
    kind = report.banned ? 'ban' : 'backoff';
  } else {
    ms = delayFor(undefined, state.retriesDone, random);
    kind = report.banned ? 'ban' : 'backoff';
  }
  if (!fitsBudget(kind, ms, budget, paced) || (budget.maxWaitMs === 0 && countsTowardMaxWait(kind, paced))) return { retry: false, kind, ms };
  return { retry: true, kind, ms };
}

/** A wait the core is about to make, for the layer above to show. */
export type WaitNotice =
  /** The gate holds the request until `until` (nothing sent yet). */
  | { what: 'gate'; kind: WaitKind; ms: number; until: number; at: number }
  /** A retry after a failed attempt: `reason` is the failure's short form (`HTTP 503`, `connection reset by the server`). */
  | { what: 'retry'; kind: WaitKind; ms: number; at: number; retry: number; retries: number; reason: string };

/** The sentences the layer above gives the core for its notices and errors (output/waits.ts). */
export interface WaitWords {
  notice(notice: WaitNotice): string;
  /** The message and hint of a RateLimitError for this stop. */
  stop(stop: WaitStop): { message: string; hint?: string };
  /** The end of a final error after retries: `, 5 attempts over 16.7s`. */
  attempts(count: number, elapsedMs: number): string;
}
