/**
 * Pacing decisions as pure functions of (what is recorded, now): whether one
 * more request may go, and what an answer teaches about the limits. The gate
 * (gate.ts) runs them on a LimitStore atomically, so every process that uses
 * one base URL and key draws from one budget.
 *
 * The budget is the server's own count: X-RateLimit-Remaining of the current
 * window, identified by its X-RateLimit-Reset. Every request let through takes
 * one from it before it is sent (so requests in flight are already counted);
 * every answer lowers it to what the server says is left, never raises it
 * (an answer may be older than requests already granted). When the window has
 * ended, nothing is known about the next one: a paced sender (bulk import)
 * sends one request, the probe, and the others wait for its answer to learn
 * the new budget. That way an import runs at the plan's full rate without
 * ever spending the same remaining request twice, and without a 429 storm.
 *
 * Single commands claim from the same budget (the claim before the wire):
 * every answer that names its window records it, so once the remaining count
 * is known no request of any process goes without taking one of it, and one
 * that finds none left waits for the window (a hundred commands started
 * together send no more than the window holds). While no window is known
 * they send at once; only a paced sender probes.
 */

import { holdAfterTimeless429 } from '../retry';
import { type BlockReason, type LimitEntry, latestTime } from './entry';

export type { BlockReason, LimitEntry, LimitWindow } from './entry';

/** What one answer said about the limits. */
export interface RateAnswer {
  status: number;
  /** X-RateLimit-Limit. */
  limit?: number;
  /** X-RateLimit-Remaining. */
  remaining?: number;
  /** X-RateLimit-Reset (Unix seconds), as sent. */
  reset?: number;
  /** The reset on this machine's clock; undefined when it is in the past or implausibly far (then it is ignored). */
  resetAt?: number;
  /** For a 429: its Retry-After, on this machine's clock. Without one the block lasts until `resetAt`, when known. */
  retryAt?: number;
  /** For a 429: the key is banned (Error code key_banned). */
  banned?: boolean;
}

export type GateDecision =
  /** Send now. `entry` is the new record when the decision changed it (a permit taken, a probe started). */
  | { go: true; entry?: LimitEntry }
  /** Ask again at `until`. */
  | { go: false; until: number; reason: BlockReason | 'window' | 'probe' | 'hold' };

/** A Reset this many seconds later than the known one may still name the same window (a server's rounding). */
export const RESET_JITTER_S = 2;
/** How often a request waiting for the probe's answer looks again. */
export const PROBE_POLL_MS = 20;
/** How long an answer without a budget frees paced requests from probing (a server may start sending one). */
export const UNTRACKED_MS = 60_000;
/**
 * How long a 429 that named neither a time nor a budget keeps paced requests
 * probing one at a time: such a server limits without saying how far, so
 * requests sent side by side would meet its limit together, each window.
 */
export const SILENT_LIMIT_MS = 60 * 60 * 1000;

/**
 * `paced`: bulk import, which keeps the shared count from its first request; single commands are not.
 * `reserve` (paced only, `pets add --file --reserve`): requests of every window left to other
 * commands on the key; a paced request treats a window with no more than that left as exhausted.
 */
export function decide(entry: LimitEntry | undefined, now: number, paced: boolean, probeLeaseMs: number, reserve = 0): GateDecision {
  if (entry?.blockedUntil !== undefined && entry.blockedUntil > now) {
    const held = entry.holdMs !== undefined && entry.reason !== 'key_banned';
    return { go: false, until: entry.blockedUntil, reason: held ? 'hold' : (entry.reason ?? 'rate_limited') };
  }
  if (entry?.holdMs !== undefined) {
    // After a hold nothing is known of the server's limit: one request, paced or not, finds out.
    if (entry.probeUntil !== undefined && entry.probeUntil > now) return { go: false, until: Math.min(entry.probeUntil, now + PROBE_POLL_MS), reason: 'probe' };
    return { go: true, entry: { ...entry, probeUntil: now + probeLeaseMs } };
  }
  const window = entry?.window;
  if (window && now < window.resetAt) {
    if (window.remaining <= (paced ? reserve : 0)) return { go: false, until: window.resetAt, reason: 'window' };
    return { go: true, entry: { ...entry, window: { ...window, remaining: window.remaining - 1 } } };
  }
  if (!paced || (entry?.untrackedUntil ?? 0) > now) return { go: true };
  if (entry?.probeUntil !== undefined && entry.probeUntil > now) {
    return { go: false, until: Math.min(entry.probeUntil, now + PROBE_POLL_MS), reason: 'probe' };
  }
  const { window: _ended, ...rest } = entry ?? {};
  return { go: true, entry: { ...rest, probeUntil: now + probeLeaseMs } };
}

/**
 * The record after an answer, or undefined when it need not change (so a
 * single command with plenty of budget writes nothing).
 */
export function observe(entry: LimitEntry | undefined, answer: RateAnswer, now: number, paced: boolean): LimitEntry | undefined {
  let next: LimitEntry = { ...entry };
  let changed = false;

  const retryAt = answer.status === 429 ? (answer.retryAt ?? answer.resetAt) : undefined;
  if (retryAt !== undefined && retryAt > now && (next.blockedUntil ?? 0) < retryAt) {
    next = { ...next, blockedUntil: retryAt, reason: answer.banned ? 'key_banned' : 'rate_limited' };
    changed = true;
  }
  const held = (next.blockedUntil ?? 0) > now && next.holdMs !== undefined;
  if (answer.status === 429 && retryAt === undefined && !held) {
    // No usable time: everything on the key holds, for longer each time the probe after a hold meets a 429.
    const windowLeft = next.window && next.window.resetAt > now ? next.window.resetAt - now : undefined;
    const holdMs = holdAfterTimeless429(next.holdMs, windowLeft);
    const { probeUntil: _probe, ...rest } = next;
    next = { ...rest, holdMs, blockedUntil: Math.max(now + holdMs, next.blockedUntil ?? 0), reason: answer.banned ? 'key_banned' : 'rate_limited' };
    if (answer.remaining === undefined) {
      // Refused without a budget either: freedom from probing ends, until long after.
      delete next.untrackedUntil;
      next.silentLimitUntil = Math.max(now + SILENT_LIMIT_MS, next.silentLimitUntil ?? 0);
    }
    changed = true;
  } else if (answer.status !== 429 && next.holdMs !== undefined && !held) {
    // The probe got through: the hold is over.
    const { holdMs: _hold, probeUntil: _probe, ...rest } = next;
    next = rest;
    changed = true;
  }

  const { remaining, reset, resetAt } = answer;
  // A 429's Retry-After is the server's word on when to send again: the
  // Remaining/Reset of that same answer must not hold anything longer.
  const windowSaid = !(answer.status === 429 && answer.retryAt !== undefined);
  if (windowSaid && remaining !== undefined && reset !== undefined && resetAt !== undefined) {
    const known = next.window;
    const live = known !== undefined && now < known.resetAt;
    const left = answer.status === 429 ? 0 : remaining;
    if (known && known.reset === reset) {
      // Both ends are never early (see ServerClock), so the earlier is the closer.
      if (left < known.remaining || resetAt < known.resetAt) {
        next.window = { ...known, remaining: Math.min(left, known.remaining), resetAt: Math.min(resetAt, known.resetAt) };
        changed = true;
      }
    } else if (known && live && reset < known.reset) {
      // An answer from a window that has already been replaced: it says nothing about the current one.
    } else {
      // A later window than ours: our end of the old one (a whole-second Reset, corrected for the
      // server's clock) can run a second or two late, while the server has moved on. Its count is
      // the new window's budget; carrying the old window's remainder over would hold every paced
      // request for a whole window. A Reset only a little later may be the same window reported
      // with jitter, where an answer older than requests already let through must not raise the budget.
      const sameWindow = live && reset - known.reset <= RESET_JITTER_S;
      next.window = { reset, resetAt, remaining: sameWindow ? Math.min(known.remaining, left) : left, ...(answer.limit === undefined ? {} : { limit: answer.limit }) };
      delete next.probeUntil;
      changed = true;
    }
    if (answer.status !== 429 && left === 0 && (next.blockedUntil ?? 0) < resetAt) {
      // Nothing left until the reset: the next process must not even try (and get a 429).
      // After a 429 its Retry-After, recorded above, is the server's word instead.
      next = { ...next, blockedUntil: resetAt, reason: 'quota_exhausted' };
      changed = true;
    }
  } else if (windowSaid && paced && answer.status !== 429 && (next.untrackedUntil ?? 0) <= now && (next.silentLimitUntil ?? 0) <= now) {
    // No budget to learn: waiting for probes would only hold every request to one at a time.
    next.untrackedUntil = now + UNTRACKED_MS;
    changed = true;
  }
  if (paced && next.probeUntil !== undefined && next.window === entry?.window) {
    // The probe has its answer, whatever it said: nobody need wait for it any longer.
    delete next.probeUntil;
    changed = true;
  }
  return changed ? next : undefined;
}

/** Entries whose every time is this far past are dropped when the state is written. */
export const PRUNE_AFTER_MS = 24 * 60 * 60 * 1000;

export function isStale(entry: LimitEntry, now: number): boolean {
  return latestTime(entry) < now - PRUNE_AFTER_MS;
}
