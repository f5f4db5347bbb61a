import { MAX_PLAUSIBLE_RESET_MS } from './headers';

export type BlockReason = 'rate_limited' | 'key_banned' | 'quota_exhausted';

export interface LimitWindow {
  /** The server's reset as sent (Unix seconds): it names the window, so answers from an older one are recognised. */
  reset: number;
  /** When the window ends on this machine's clock (epoch ms, corrected for the server's clock skew). */
  resetAt: number;
  remaining: number;
  /** Shown by `profile show`. */
  limit?: number;
}

/** The rate-limit record kept per base URL and key. Every time is epoch ms on this machine's clock. */
export interface LimitEntry {
  /** Nothing may be sent before this (a 429's Retry-After, a ban, an exhausted quota). */
  blockedUntil?: number;
  reason?: BlockReason;
  window?: LimitWindow;
  /** A request is finding out the window's budget (or whether a hold's limit reopened); others wait for its answer until then. */
  probeUntil?: number;
  /** The service's answers name no window: requests go without probing until then. */
  untrackedUntil?: number;
  /** The service refused a request without naming a time or a budget: until then an answer without a budget frees nobody from probing. */
  silentLimitUntil?: number;
  /** A 429 named no time: the length of the hold it started (blockedUntil ends it); waits.ts says what follows. */
  holdMs?: number;
}

/** The record's times besides blockedUntil and the window's resetAt. */
const TIMES = ['probeUntil', 'untrackedUntil', 'silentLimitUntil'] as const;
const REASONS: readonly unknown[] = ['rate_limited', 'key_banned', 'quota_exhausted'];

/** How far ahead a stored time may lie (the longest wait the service can ask for, and a day for clocks); later ones were planted. */
export const MAX_STORED_AHEAD_MS = MAX_PLAUSIBLE_RESET_MS + 24 * 60 * 60 * 1000;

/** `value` when it is a count (finite, not negative) that `fits`; one present but not is named in `dropped`. */
function keep(value: unknown, fits: (count: number) => boolean, name: string, dropped: string[]): number | undefined {
  if (value === undefined || (typeof value === 'number' && Number.isFinite(value) && value >= 0 && fits(value))) return value;
  dropped.push(name);
  return undefined;
}

/** Reads a stored record leniently: a field petctl could not have stored is dropped (it only holds timings) and named in `dropped`. */
export function readEntry(raw: unknown, now: number, dropped: string[]): LimitEntry | undefined {
  if (!raw || typeof raw !== 'object') {
    if (raw !== undefined && raw !== null) dropped.push('the record');
    return undefined;
  }
  const stored = raw as Record<string, unknown>;
  const latest = now + MAX_STORED_AHEAD_MS;
  const isTime = (ms: number) => ms <= latest;
  const entry: LimitEntry = {};
  const blockedUntil = keep(stored.blockedUntil, isTime, 'blockedUntil', dropped);
  if (blockedUntil !== undefined) {
    // A block is only whole with its reason.
    if (REASONS.includes(stored.reason)) Object.assign(entry, { blockedUntil, reason: stored.reason });
    else dropped.push('reason');
  }
  const window = readWindow(stored.window, isTime, dropped);
  if (window) entry.window = window;
  for (const name of TIMES) {
    const time = keep(stored[name], isTime, name, dropped);
    if (time !== undefined) entry[name] = time;
  }
  const holdMs = keep(stored.holdMs, (ms) => ms <= MAX_STORED_AHEAD_MS, 'holdMs', dropped);
  if (holdMs !== undefined) entry.holdMs = holdMs;
  return Object.keys(entry).length > 0 ? entry : undefined;
}

function readWindow(raw: unknown, isTime: (ms: number) => boolean, dropped: string[]): LimitWindow | undefined {
  if (raw === undefined) return undefined;
  const stored = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const reset = keep(stored.reset, (seconds) => isTime(seconds * 1000), 'window.reset', dropped);
  const resetAt = keep(stored.resetAt, isTime, 'window.resetAt', dropped);
  const remaining = keep(stored.remaining, () => true, 'window.remaining', dropped);
  const limit = keep(stored.limit, () => true, 'window.limit', dropped);
  const whole = reset !== undefined && resetAt !== undefined && remaining !== undefined;
  if (whole) return { reset, resetAt, remaining, ...(limit === undefined ? {} : { limit }) };
  for (const name of ['reset', 'resetAt', 'remaining']) if (stored[name] === undefined) dropped.push(`window.${name}`);
  return undefined;
}

/** The record with every time moved by `by` ms (another clock's view of the same moments). */
export function shiftEntry(entry: LimitEntry | undefined, by: number): LimitEntry | undefined {
  if (!entry) return undefined;
  const shifted = { ...entry };
  if (entry.blockedUntil !== undefined) shifted.blockedUntil = entry.blockedUntil + by;
  if (entry.window) shifted.window = { ...entry.window, resetAt: entry.window.resetAt + by };
  for (const name of TIMES) if (entry[name] !== undefined) shifted[name] = entry[name] + by;
  return shifted;
}

/** The record's latest time (epoch ms), or 0: past it, nothing in the record holds anyone. */
export function latestTime(entry: LimitEntry): number {
  return Math.max(0, entry.blockedUntil ?? 0, entry.window?.resetAt ?? 0, ...TIMES.map((name) => entry[name] ?? 0));
}

const later = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? (a ?? b) : Math.max(a, b));

/** Two views of one record as one, keeping whatever holds longer, so a store fallen back to another obeys what the first said. */
export function mergeEntries(a: LimitEntry | undefined, b: LimitEntry | undefined): LimitEntry | undefined {
  if (!a || !b) return a ?? b;
  const merged: LimitEntry = {};
  for (const name of ['blockedUntil', ...TIMES, 'holdMs'] as const) {
    const time = later(a[name], b[name]);
    if (time !== undefined) merged[name] = time;
  }
  if (merged.blockedUntil !== undefined) merged.reason = (merged.blockedUntil === a.blockedUntil ? a : b).reason;
  const window = a.window && b.window ? mergeWindows(a.window, b.window) : (a.window ?? b.window);
  if (window) merged.window = window;
  return merged;
}

function mergeWindows(a: LimitWindow, b: LimitWindow): LimitWindow {
  if (a.reset !== b.reset) return a.reset > b.reset ? a : b;
  // Two views of one window, neither early: the earlier end, and the smaller budget (each view has spent some).
  return { ...b, ...a, resetAt: Math.min(a.resetAt, b.resetAt), remaining: Math.min(a.remaining, b.remaining) };
}

/** Records whose every time is this far past are dropped when the state is written. */
export const PRUNE_AFTER_MS = 24 * 60 * 60 * 1000;

export function isStale(entry: LimitEntry, now: number): boolean {
  return latestTime(entry) < now - PRUNE_AFTER_MS;
}
