import { RateLimitError } from '../errors';
import { formatLocalTime, formatWait, formatWhen } from '../output/time';
import type { GateDecision } from './limits/rules';
import { type AttemptOutcome, delayFor, shouldRetry } from './retry';

/**
 * The one model of waiting: every wait the HTTP core makes is named and
 * decided here, from the table in the README ("Rate limits"). The send loop
 * (http-client.ts) asks; these functions take values and return values.
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

export type WaitKind = 'retry_after' | 'ban' | 'minute_window' | 'day_quota' | 'backoff' | 'probe';

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

/** Why a request is held, in a few words: the start of notices and of errors. */
export function describeWait(kind: WaitKind, until: number, now: number): string {
  switch (kind) {
    case 'ban':
      return `the API key is banned until ${formatLocalTime(until, now)}`;
    case 'retry_after':
      return 'rate limited (HTTP 429, Retry-After)';
    case 'day_quota':
      return 'the daily quota is used up';
    case 'minute_window':
      return 'rate limit reached';
    case 'backoff':
      return 'rate limited (HTTP 429)';
    case 'probe':
      return 'waiting for the rate-limit window';
  }
}

/** The line shown while the gate holds a request. */
export function gateWaitNotice(kind: WaitKind, ms: number, until: number, now: number): string {
  if (kind === 'minute_window') return `rate limit reached; waiting ${formatWait(ms)} for the window to reopen`;
  if (kind === 'probe') return describeWait(kind, until, now);
  return `${describeWait(kind, until, now)}; waiting ${formatWait(ms)}, until ${formatLocalTime(until, now)}`;
}

/** The line shown before a retry: `HTTP 429; retry 1/4 in 2s`. */
export function retryNotice(what: string, kind: WaitKind, ms: number, retry: number, retries: number, now: number): string {
  const why = kind === 'ban' ? describeWait(kind, now + ms, now) : what;
  return `${why}; retry ${retry}/${retries} in ${formatWait(ms)}`;
}

/** The error when the gate's wait does not fit --max-wait: nothing was sent, and it says when to try again. */
export function gateStopError(kind: WaitKind, until: number, now: number, maxWaitMs: number): RateLimitError {
  const reason = describeWait(kind, until, now);
  return new RateLimitError(`${reason}; nothing sent. Try again ${formatWhen(until, now)}`, {
    code: codeFor(kind),
    retryAt: until,
    reason,
    hint: maxWaitMs === 0 ? undefined : maxWaitHint(codeFor(kind)),
  });
}

/** The hint to raise --max-wait, where a longer wait is worth asking for: not for a ban or the day's quota. */
export function maxWaitHint(code: string | undefined): string | undefined {
  return code === 'key_banned' || code === 'quota_exhausted' ? undefined : 'raise --max-wait to wait longer';
}
