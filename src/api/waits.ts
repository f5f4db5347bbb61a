import { isDeepStrictEqual } from 'node:util';
import type { WaitKind } from '../errors';
import type { BlockReason, LimitEntry } from './limits/entry';

/**
 * The one model of waiting: pure functions of (the key's record, an answer, now). The gate runs decide and observe,
 * the send loop planRetry; both obey. The one claim rule: every request asks decide for a slot before the wire.
 *
 *   situation                                  the request gets            kind           --max-wait
 *   blocked: a 429's Retry-After (else the     wait until then             retry_after    counts
 *     reset it names), this process's or any
 *   a ban (429 key_banned)                     wait until its Retry-After; ban            counts
 *                                              a second ban ends it
 *   a 429 that named no usable time            a hold of every request on  backoff        counts
 *                                              the key (holdAfterTimeless429),
 *                                              then one probes
 *   the window is known and has a slot         go, claiming a block sized  -
 *     (more than --reserve for an import)      to the process's rate
 *   the window is known and has none           wait for its reset          minute_window  single commands: counts
 *                                                                          or day_quota   imports, --all: it is the pace
 *   no live window, none probing               go as the probe             -
 *   another request is probing                 wait for its answer         probe          never (milliseconds)
 *   the service names no window (an answer     go, --concurrency in        -
 *     without limits, within UNTRACKED_MS)     flight; a 429 still holds,
 *                                              and one naming no time nor
 *                                              budget makes every request
 *                                              probe for SILENT_LIMIT_MS
 *   the shared store fell back (solo)          every request probes: one   probe          never
 *                                              in flight per machine
 *   a 5xx (GET) or a network error             exponential backoff, full   backoff        counts
 *                                              jitter; a 503's Retry-After retry_after
 *   an unknown host, TLS to plain HTTP, a      no retry                    -
 *     refused port on this machine
 *   a retry past the request's bound           no retry (requestDeadline)  -
 *
 * A single command's counted waits add up against --max-wait; an import's or a listing's requests each have their own.
 * A wait that would go past it is not started: the request ends at once (exit 5) saying when to try again.
 */

/** What one answer said about the limits; `reset` in Unix seconds as sent. */
export interface RateAnswer {
  status: number;
  limit?: number;
  remaining?: number;
  reset?: number;
  /** The reset on this machine's clock; undefined when it is in the past or implausibly far (then it is ignored). */
  resetAt?: number;
  /** For a 429: its Retry-After, on this machine's clock. Without one the block lasts until `resetAt`, when known. */
  retryAt?: number;
  banned?: boolean;
}

export type GateDecision =
  /** Send now. `entry` is the new record when the decision changed it (slots claimed, a probe started); `slots` claimed. */
  | { go: true; entry?: LimitEntry; slots?: number }
  | { go: false; until: number; reason: BlockReason | 'window' | 'probe' | 'hold' };

/** How a request claims: `reserve` slots of each window left to others (an import's --reserve); `solo`: every request probes. */
export interface Claim {
  reserve: number;
  solo: boolean;
  /** How long others wait for a probe's answer at most. */
  probeLeaseMs: number;
  /** Slots wanted at once, sized to the process's rate: those it does not send now are its own to send next (gate.ts). */
  block: number;
}

/** A Reset this many seconds later than the known one may still name the same window (a server's rounding). */
export const RESET_JITTER_S = 2;
/** How often a request waiting for the probe's answer looks again. */
export const PROBE_POLL_MS = 20;
/** A killed probe holds the others up no longer than this; a crowd's probe on a loaded machine answers well within it. */
export const MAX_PROBE_LEASE_MS = 5_000;
/** How long an answer without limits frees requests from probing (a server may start sending them). */
export const UNTRACKED_MS = 60_000;
/** How long a 429 that named neither a time nor a budget keeps every request probing, one at a time. */
export const SILENT_LIMIT_MS = 60 * 60 * 1000;
/** A 429 that names no usable time holds everything on the key at least this long. */
export const HOLD_MIN_MS = 5_000;
/** Holds double while the probe after each meets a 429, up to this (the specification's short window is a minute). */
export const HOLD_CAP_MS = 60_000;
const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 30_000;
/** A window that reopens within this long is the plan's minute; one further off is the day's quota. */
export const MINUTE_WINDOW_MAX_MS = 2 * 60_000;

export function blockedBy(entry: LimitEntry | undefined, now: number): Extract<GateDecision, { go: false }> | undefined {
  if (entry?.blockedUntil === undefined || entry.blockedUntil <= now) return undefined;
  const held = entry.holdMs !== undefined && entry.reason !== 'key_banned';
  return { go: false, until: entry.blockedUntil, reason: held ? 'hold' : (entry.reason ?? 'rate_limited') };
}

/** Whether one more request may go now, claiming its slot (the table above). */
export function decide(entry: LimitEntry | undefined, now: number, claim: Claim): GateDecision {
  const blocked = blockedBy(entry, now);
  if (blocked) return blocked;
  const lease = entry?.probeUntil;
  const probe = (next: LimitEntry): GateDecision =>
    lease !== undefined && ahead(lease, now, MAX_PROBE_LEASE_MS)
      ? { go: false, until: Math.min(lease, now + PROBE_POLL_MS), reason: 'probe' }
      : { go: true, entry: { ...next, probeUntil: now + Math.min(claim.probeLeaseMs, MAX_PROBE_LEASE_MS) } };
  // After a hold nothing is known of the server's limit: one request finds out.
  if (entry?.holdMs !== undefined) return probe(entry);
  const window = entry?.window;
  if (window && now < window.resetAt) {
    if (window.remaining <= claim.reserve) return { go: false, until: window.resetAt, reason: 'window' };
    const slots = claim.solo ? 1 : Math.max(1, Math.min(claim.block, window.remaining - claim.reserve));
    const claimed = { ...entry, window: { ...window, remaining: window.remaining - slots } };
    return claim.solo ? probe(claimed) : { go: true, entry: claimed, slots };
  }
  if (!claim.solo && ahead(entry?.untrackedUntil, now, UNTRACKED_MS)) return { go: true };
  const { window: _ended, ...rest } = entry ?? {};
  return probe(rest);
}

/** A time petctl set at most `mostMs` ahead (a probe's lease, untrackedUntil) that is still to come. One far beyond
 * was set on a clock since set back, or by hand: heeding it could hold a crowd, or free it from the claim rule, for
 * hours. Twice the most, since processes sharing a store read its times on clocks a few milliseconds apart. */
function ahead(until: number | undefined, now: number, mostMs: number): boolean {
  return until !== undefined && until > now && until <= now + 2 * mostMs;
}

/** The record with `slots` claimed in the window `reset` and not sent given back, while that window lasts. */
export function giveBack(entry: LimitEntry | undefined, reset: number, slots: number, now: number): LimitEntry | undefined {
  const window = entry?.window;
  const same = window !== undefined && Math.abs(window.reset - reset) <= RESET_JITTER_S && now < window.resetAt;
  return same ? { ...entry, window: { ...window, remaining: window.remaining + slots } } : undefined;
}

/** The record after an answer, or undefined when it need not change. */
export function observe(entry: LimitEntry | undefined, answer: RateAnswer, now: number): LimitEntry | undefined {
  let next: LimitEntry = { ...entry };
  const refused = answer.status === 429;
  const reason = answer.banned ? 'key_banned' : 'rate_limited';

  const retryAt = refused ? (answer.retryAt ?? answer.resetAt) : undefined;
  if (retryAt !== undefined && retryAt > now && (next.blockedUntil ?? 0) < retryAt) next = { ...next, blockedUntil: retryAt, reason };
  const held = (next.blockedUntil ?? 0) > now && next.holdMs !== undefined;
  if (refused && retryAt === undefined && !held) {
    // No usable time: everything on the key holds, for longer each time the probe after a hold meets a 429.
    const windowLeft = next.window && next.window.resetAt > now ? next.window.resetAt - now : undefined;
    const holdMs = holdAfterTimeless429(next.holdMs, windowLeft);
    next = { ...next, holdMs, blockedUntil: Math.max(now + holdMs, next.blockedUntil ?? 0), reason };
    if (answer.remaining === undefined) {
      // A limit the service does not describe: requests side by side would meet it together, each window.
      delete next.untrackedUntil;
      next.silentLimitUntil = Math.max(now + SILENT_LIMIT_MS, next.silentLimitUntil ?? 0);
    }
  } else if (!refused && !held) {
    // The probe got through: the hold is over.
    delete next.holdMs;
  }

  const { remaining, reset, resetAt } = answer;
  // A 429's Retry-After is the server's word on when to send again: the Remaining/Reset of that same answer must not hold anything longer.
  const windowSaid = !(refused && answer.retryAt !== undefined);
  if (windowSaid && remaining !== undefined && reset !== undefined && resetAt !== undefined) {
    const known = next.window;
    const live = known !== undefined && now < known.resetAt;
    const left = refused ? 0 : remaining;
    if (known && known.reset === reset) {
      // Both ends are never early (see ServerClock), so the earlier is the closer; the budget only goes down.
      next.window = { ...known, remaining: Math.min(left, known.remaining), resetAt: Math.min(resetAt, known.resetAt) };
    } else if (!(known && live && reset < known.reset)) {
      // A later window (an older one's answer says nothing): our end of the old one may run late, so its count is the
      // new budget; a Reset only a little later may be the same window with jitter, which never raises it.
      const sameWindow = live && reset - known.reset <= RESET_JITTER_S;
      next.window = { reset, resetAt, remaining: sameWindow ? Math.min(known.remaining, left) : left, ...(answer.limit === undefined ? {} : { limit: answer.limit }) };
    }
    // Nothing left until the reset: the next process must not even try (and get a 429).
    if (!refused && left === 0 && (next.blockedUntil ?? 0) < resetAt) next = { ...next, blockedUntil: resetAt, reason: 'quota_exhausted' };
  } else if (windowSaid && !refused && !ahead(next.untrackedUntil, now, UNTRACKED_MS) && (next.silentLimitUntil ?? 0) <= now) {
    // The service names no window: probing would only hold every request to one at a time.
    next.untrackedUntil = now + UNTRACKED_MS;
  }
  // The probe has its answer, whatever it said: nobody need wait for it any longer.
  delete next.probeUntil;
  return isDeepStrictEqual(next, entry ?? {}) ? undefined : next;
}

/** The hold after a 429 without a usable time: the larger of HOLD_MIN_MS and the window's rest; after a probe that met a 429
 * again, twice the last, up to HOLD_CAP_MS. Never random: jitter would release requests one by one into a limit still closed. */
function holdAfterTimeless429(previousHoldMs: number | undefined, windowLeftMs: number | undefined): number {
  const start = Math.max(HOLD_MIN_MS, windowLeftMs ?? 0);
  return previousHoldMs === undefined ? start : Math.max(start, Math.min(HOLD_CAP_MS, previousHoldMs * 2));
}

/** What one attempt came to: `sent`, whether it may have reached the server; `retryable: false`, nothing listens on this machine's port. */
export type AttemptOutcome = { kind: 'response'; status: number } | { kind: 'network'; sent: boolean; retryable?: boolean };

/** A 429 was not processed: any method may be retried after it; a GET also after a gateway error or a network failure. A POST
 * that may have been received is never sent again: it could create the animal twice. (After stripe-node's _shouldRetry.) */
export function shouldRetry(outcome: AttemptOutcome, retriesDone: number, maxRetries: number, method: string): boolean {
  if (retriesDone >= maxRetries) return false;
  if (outcome.kind === 'response') return outcome.status === 429 || (method === 'GET' && [502, 503, 504].includes(outcome.status));
  return outcome.retryable !== false && (method === 'GET' || !outcome.sent);
}

/** Full-jitter exponential backoff (AWS: random in [0, min(cap, base * 2^n))). */
export function backoffMs(retriesDone: number, random: () => number): number {
  return Math.floor(random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retriesDone));
}

export function codeFor(kind: WaitKind): 'rate_limited' | 'quota_exhausted' | 'key_banned' {
  return kind === 'ban' ? 'key_banned' : kind === 'day_quota' ? 'quota_exhausted' : 'rate_limited';
}

function windowKind(until: number, now: number): 'minute_window' | 'day_quota' {
  return until - now > MINUTE_WINDOW_MAX_MS ? 'day_quota' : 'minute_window';
}

/** What the gate's refusal is waiting for; an exhausted window by how far off its reset is. */
const GATE_WAIT_KINDS: Record<string, WaitKind> = { probe: 'probe', key_banned: 'ban', hold: 'backoff', rate_limited: 'retry_after' };
export function gateWaitKind(decision: Extract<GateDecision, { go: false }>, now: number): WaitKind {
  return GATE_WAIT_KINDS[decision.reason] ?? windowKind(decision.until, now);
}

/** Whether a wait draws on --max-wait (`paced`: an import's or a listing's request, whose pace is the window). */
export function countsTowardMaxWait(kind: WaitKind, paced: boolean): boolean {
  return kind !== 'probe' && !(paced && kind === 'minute_window');
}

export interface WaitBudget {
  maxWaitMs: number;
  waitedMs: number;
}

/** Whether a wait of `ms` may start: a counted one must fit in what is left of --max-wait (0: never wait). */
export function fitsBudget(kind: WaitKind, ms: number, budget: WaitBudget, paced: boolean): boolean {
  if (!countsTowardMaxWait(kind, paced) || ms <= 0) return true;
  return budget.maxWaitMs > 0 && budget.waitedMs + ms <= budget.maxWaitMs;
}

/** The times an answer named for its retry (client.ts's Limits). */
export interface AttemptTimes {
  /** A 429's or a 503's usable Retry-After in ms. */
  retryAfterMs?: number;
  /** A 429 without Retry-After: ms until the window's reset, when named. */
  resetInMs?: number;
  /** A 429 that named no usable time: ms until this process's hold ends. */
  holdMs?: number;
}

export type AttemptReport = AttemptTimes & { outcome: AttemptOutcome; banned?: boolean };

interface RetryState {
  /** What is left of the request's bound (requestDeadline). */
  timeLeftMs: number;
  timeoutMs: number;
  retriesDone: number;
  maxRetries: number;
  method: string;
  /** Bans this send has met so far: key_banned answers, the last one included, and a ban it waited out before sending. */
  bans: number;
}

type RetryPlan = { retry: true; kind: WaitKind; ms: number } | { retry: false; kind?: WaitKind; ms?: number };

export function planRetry(report: AttemptReport, state: RetryState, budget: WaitBudget, paced: boolean, random: () => number): RetryPlan {
  if (!shouldRetry(report.outcome, state.retriesDone, state.maxRetries, state.method)) return { retry: false };
  // A ban is waited out once; a second one means the key is still banned: stop rather than risk a longer one.
  if (report.banned && state.bans > 1) return { retry: false };
  // The server's word first: Retry-After exactly, whatever X-RateLimit-Reset says; else the reset it named; else the hold.
  const ms = report.retryAfterMs ?? report.resetInMs ?? report.holdMs ?? backoffMs(state.retriesDone, random);
  let kind: WaitKind = report.resetInMs === undefined ? 'backoff' : windowKind(report.resetInMs, 0);
  if (report.retryAfterMs !== undefined) kind = 'retry_after';
  if (report.banned) kind = 'ban';
  const fits = fitsBudget(kind, ms, budget, paced) && !(budget.maxWaitMs === 0 && countsTowardMaxWait(kind, paced));
  return { retry: fits && attemptFits(state.timeLeftMs - ms, state.timeoutMs), kind, ms };
}

const BOUND_SLACK_MS = 1_000;

/** When a request and its retries must be over (monotonic clock), whatever the server does. An import's or a listing's
 * pace (waits countsTowardMaxWait leaves out) moves it on: those are the window's. */
export function requestDeadline(firstAttemptAt: number, timeoutMs: number, maxWaitMs: number): number {
  return firstAttemptAt + Math.max(timeoutMs, maxWaitMs) + BOUND_SLACK_MS;
}

/** Whether an attempt may start with `timeLeftMs` of its bound left: its --timeout, or a second at least. */
export function attemptFits(timeLeftMs: number, timeoutMs: number): boolean {
  return timeLeftMs >= Math.min(timeoutMs, BOUND_SLACK_MS);
}
