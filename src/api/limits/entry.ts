import { MAX_PLAUSIBLE_RESET_MS } from './headers';

/**
 * The rate-limit record kept per base URL and key, and everything done to it
 * field by field: reading it leniently, moving its times to another clock,
 * merging two of them, and how long it matters. All of that runs from the one
 * field list below, and the type checker holds the list to the record, so a
 * field added to LimitEntry cannot be forgotten by any of them (or by the
 * stores' contract suite, which builds its records from the same list).
 */

export type BlockReason = 'rate_limited' | 'key_banned' | 'quota_exhausted';

/** The current window as the server described it. */
export interface LimitWindow {
  /** The server's reset as sent (Unix seconds): it names the window, so answers from an older one are recognised. */
  reset: number;
  /** When the window ends on this machine's clock (epoch ms, corrected for the server's clock skew). */
  resetAt: number;
  /** Requests this machine may still send in the window. */
  remaining: number;
  /** The window's limit, when the server sent it (shown by `profile show`). */
  limit?: number;
}

/** What is recorded per base URL and key. Every time is epoch ms on this machine's clock. */
export interface LimitEntry {
  /** Nothing may be sent before this (a 429's Retry-After, a ban, an exhausted quota). */
  blockedUntil?: number;
  reason?: BlockReason;
  window?: LimitWindow;
  /** A request is finding out the window's budget (or whether a hold's limit reopened); others wait for its answer until then. */
  probeUntil?: number;
  /** The service's answers name no window: requests go without probing until then. */
  untrackedUntil?: number;
  /**
   * The service refused a request without naming a time or a budget: until then an answer
   * without a budget frees nobody from probing (it limits without saying how far).
   */
  silentLimitUntil?: number;
  /**
   * A 429 named no time: the length of the hold it started (blockedUntil ends it). Once it
   * ends, one request probes and every other waits for its answer; any answer but a 429
   * clears it, a 429 to the probe starts a hold twice as long.
   */
  holdMs?: number;
}

/**
 * `time`: epoch ms on this machine's clock, moved with the clock, merged by the later.
 * `duration`: ms, the same on every clock, merged by the longer.
 * `reason`: the kind of block; it belongs to blockedUntil and goes where it goes.
 * `window`: a LimitWindow, by its own list.
 */
type EntryKind = 'time' | 'duration' | 'reason' | 'window';
/** `unixSeconds`: the server's own name for a window, never moved. `count`: a number of requests. */
type WindowKind = 'time' | 'unixSeconds' | 'count';

/** The record's one field list. */
export const ENTRY_FIELDS = {
  blockedUntil: 'time',
  reason: 'reason',
  window: 'window',
  probeUntil: 'time',
  untrackedUntil: 'time',
  silentLimitUntil: 'time',
  holdMs: 'duration',
} as const satisfies { [K in keyof Required<LimitEntry>]: EntryKind };

export const WINDOW_FIELDS = {
  reset: 'unixSeconds',
  resetAt: 'time',
  remaining: 'count',
  limit: 'count',
} as const satisfies { [K in keyof Required<LimitWindow>]: WindowKind };

type EntryField = keyof typeof ENTRY_FIELDS;
type WindowField = keyof typeof WINDOW_FIELDS;
const entryFields = Object.keys(ENTRY_FIELDS) as EntryField[];
const windowFields = Object.keys(WINDOW_FIELDS) as WindowField[];
const REASONS = new Set<string>(['rate_limited', 'key_banned', 'quota_exhausted']);
/** A window is whole with these; `limit` is optional. */
const WINDOW_NEEDS: readonly WindowField[] = ['reset', 'resetAt', 'remaining'];

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * How far ahead of now a stored time may lie: the longest wait the service can
 * ask for (a Retry-After or a Reset is taken up to MAX_PLAUSIBLE_RESET_MS),
 * and a day more for clocks that were set back or disagree. Anything later was
 * not written by petctl: a value planted in a shared store would otherwise
 * stop every client until then, or print as an invalid date.
 */
export const MAX_STORED_AHEAD_MS = MAX_PLAUSIBLE_RESET_MS + 24 * 60 * 60 * 1000;

/**
 * Reads a stored record leniently: fields of the wrong shape are dropped (they
 * only hold timings). `dropped` is given the name of every field that was
 * present but not a value petctl could have stored, so the caller can warn.
 */
export function readEntry(raw: unknown, now: number, dropped: string[] = []): LimitEntry | undefined {
  if (!raw || typeof raw !== 'object') {
    if (raw !== undefined && raw !== null) dropped.push('the record');
    return undefined;
  }
  const latest = now + MAX_STORED_AHEAD_MS;
  const checks: Record<EntryKind | WindowKind, (value: unknown) => boolean> = {
    reason: (value) => typeof value === 'string' && REASONS.has(value),
    count: isCount,
    duration: (value) => isCount(value) && value <= MAX_STORED_AHEAD_MS,
    time: (value) => isCount(value) && value <= latest,
    unixSeconds: (value) => isCount(value) && value * 1000 <= latest,
    window: () => true,
  };
  /** A present value of the kind: kept when plausible, otherwise its name goes to `dropped`. */
  const plausible = (name: string, kind: EntryKind | WindowKind, value: unknown): boolean => {
    const ok = value !== undefined && checks[kind](value);
    if (!ok && value !== undefined) dropped.push(name);
    return ok;
  };
  const stored = raw as Record<string, unknown>;
  const entry: Record<string, unknown> = {};
  for (const name of entryFields) {
    const kind = ENTRY_FIELDS[name];
    if (kind === 'window') {
      const window = readWindow(stored.window, plausible, dropped);
      if (window) entry.window = window;
    } else if (kind === 'reason') {
      // A block is only whole with its reason (the list names blockedUntil first).
      if (entry.blockedUntil === undefined) continue;
      if (plausible(name, kind, stored[name])) entry[name] = stored[name];
      else {
        if (stored[name] === undefined) dropped.push(name);
        delete entry.blockedUntil;
      }
    } else if (plausible(name, kind, stored[name])) entry[name] = stored[name];
  }
  return Object.keys(entry).length > 0 ? (entry as LimitEntry) : undefined;
}

function readWindow(
  raw: unknown,
  plausible: (name: string, kind: WindowKind, value: unknown) => boolean,
  dropped: string[],
): LimitWindow | undefined {
  if (raw === undefined) return undefined;
  const stored = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const window: Record<string, unknown> = {};
  for (const name of windowFields) if (plausible(`window.${name}`, WINDOW_FIELDS[name], stored[name])) window[name] = stored[name];
  const missing = WINDOW_NEEDS.filter((name) => window[name] === undefined);
  if (missing.length === 0) return window as unknown as LimitWindow;
  for (const name of missing) if (stored[name] === undefined) dropped.push(`window.${name}`);
  return undefined;
}

/** The record with every time (the window's too) replaced by `each` of it. */
function mapTimes(entry: LimitEntry, each: (ms: number) => number): LimitEntry {
  const mapped: Record<string, unknown> = { ...entry };
  for (const name of entryFields) {
    const value = entry[name];
    if (value !== undefined && ENTRY_FIELDS[name] === 'time') mapped[name] = each(value as number);
    if (value !== undefined && ENTRY_FIELDS[name] === 'window') {
      const window: Record<string, unknown> = { ...(value as LimitWindow) };
      for (const field of windowFields) if (WINDOW_FIELDS[field] === 'time' && window[field] !== undefined) window[field] = each(window[field] as number);
      mapped[name] = window;
    }
  }
  return mapped as LimitEntry;
}

/** The record with every time moved by `by` ms (another clock's view of the same moments). */
export function shiftEntry(entry: LimitEntry | undefined, by: number): LimitEntry | undefined {
  return entry && mapTimes(entry, (ms) => ms + by);
}

/** The record's latest time (epoch ms), or 0: past it, nothing in the record holds anyone. */
export function latestTime(entry: LimitEntry): number {
  let latest = 0;
  mapTimes(entry, (ms) => (latest = Math.max(latest, ms)));
  return latest;
}

/**
 * Two views of one key's record as one, keeping whatever holds longer: the
 * later of each time (a block with its reason), the longer hold, and the
 * newer window (of one window, the smaller budget and the earlier end, as
 * both are never early). Used when a store falls back to another, so the
 * fallback goes on obeying what the first one said.
 */
export function mergeEntries(a: LimitEntry | undefined, b: LimitEntry | undefined): LimitEntry | undefined {
  if (!a || !b) return a ?? b;
  const merged: Record<string, unknown> = {};
  for (const name of entryFields) {
    const x = a[name];
    const y = b[name];
    if (x === undefined || y === undefined) {
      if (x !== undefined || y !== undefined) merged[name] = x ?? y;
      continue;
    }
    const kind = ENTRY_FIELDS[name];
    if (kind === 'time' || kind === 'duration') merged[name] = Math.max(x as number, y as number);
    if (kind === 'window') merged[name] = mergeWindows(x as LimitWindow, y as LimitWindow);
  }
  if (a.blockedUntil !== undefined && b.blockedUntil !== undefined) merged.reason = (b.blockedUntil > a.blockedUntil ? b : a).reason;
  return merged as LimitEntry;
}

function mergeWindows(a: LimitWindow, b: LimitWindow): LimitWindow {
  if (a.reset !== b.reset) return a.reset > b.reset ? a : b;
  const merged: Record<string, unknown> = {};
  for (const name of windowFields) {
    const x = a[name];
    const y = b[name];
    const kind = WINDOW_FIELDS[name];
    if (x === undefined || y === undefined) merged[name] = x ?? y;
    // Two counts of one window: what is left is the smaller (each view has spent some); the limit is the server's either way.
    else merged[name] = kind === 'count' && name === 'limit' ? x : Math.min(x, y);
  }
  for (const name of windowFields) if (merged[name] === undefined) delete merged[name];
  return merged as unknown as LimitWindow;
}
