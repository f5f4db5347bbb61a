import fs from 'node:fs';

import { limitsFileOf } from '../config/paths';
import { withFileLock, writeFileAtomic } from '../locked-file';
import {
  applyRateLimit,
  parseRateLimitState,
  type KeyLimits,
  type KeyRateState,
  type RateLimitDecision,
  type RateLimitPolicy,
  type RateLimitState,
} from './rate-limiter';

/**
 * Where the rate limiter keeps its counts: one entry per subject (an API key,
 * or `address:<ip>` for requests without a valid key).
 *
 * In memory, a check is one O(1) step of `checkRateLimit`.
 *
 * With a data file, the counts also live in `<data file>.limits.json` so that
 * processes sharing the file (two petctl commands on the sandbox profile)
 * share the limits, as clients of the real service do:
 *
 * - A process alone on the file counts in memory and writes the counts at most
 *   once a second (`flushMs`) and when it stops. A crash forgets at most that
 *   last second of counts; animals are never in this file.
 * - Each process lists itself (its pid) in the file while it runs. A process
 *   notices that the file changed with one stat (at most one a millisecond); when another live
 *   process is listed, every request reads, merges and writes the counts under
 *   the file's lock, so processes running side by side share them exactly.
 *   When it is alone again it goes back to counting in memory.
 * - Merging adds this process's requests since its last write to the file's
 *   window when that window is still open; ban and limited periods take the
 *   later end.
 */
export interface RateLimitBook {
  /** Decides one request of `subject`. Synchronous unless other processes share the file. */
  check(subject: string, limits: KeyLimits, now: number): RateLimitDecision | Promise<RateLimitDecision>;
  /** Writes what is pending and leaves the file. */
  close(): Promise<void>;
}

export function memoryRateLimits(policy: RateLimitPolicy): RateLimitBook {
  const state: RateLimitState = {};
  return {
    check: (subject, limits, now) => applyRateLimit(state, { ...limits, key: subject }, policy, now),
    close: async () => {},
  };
}

export { limitsFileOf };

interface LimitsDocument {
  version: 1;
  /** pids of the processes serving from this file now. */
  processes: number[];
  rateLimits: RateLimitState;
}

export interface FileRateLimitOptions {
  /** How often a process alone on the file writes its counts; default 1000 ms. */
  flushMs?: number;
  /** This process's id (tests pretend to be several). */
  pid?: number;
  /** The clock used when merging and pruning. */
  now?: () => number;
}

/** Opens the counts beside `dataFile` and lists this process in them. */
export async function openFileRateLimits(
  dataFile: string,
  policy: RateLimitPolicy,
  options: FileRateLimitOptions = {},
): Promise<RateLimitBook> {
  const book = new FileRateLimitBook(limitsFileOf(dataFile), policy, options);
  await book.sync(false);
  return book;
}

class FileRateLimitBook implements RateLimitBook {
  private state: RateLimitState = {};
  /** The counts as last written or read, to tell this process's new requests apart. */
  private base: RateLimitState = {};
  private readonly changed = new Set<string>();
  private processes: number[] = [];
  private shared = false;
  /** ino and mtime of the file as this process last saw it. */
  private seen: { ino: number; mtimeMs: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private readonly pid: number;
  private readonly flushMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly file: string,
    private readonly policy: RateLimitPolicy,
    options: FileRateLimitOptions,
  ) {
    this.pid = options.pid ?? process.pid;
    this.flushMs = options.flushMs ?? 1000;
    this.clock = options.now ?? Date.now;
  }

  check(subject: string, limits: KeyLimits, now: number): RateLimitDecision | Promise<RateLimitDecision> {
    if (!this.shared && !this.closed && this.unchangedOnDisk()) return this.decide(subject, limits, now);
    return this.serialised(() =>
      withFileLock(this.file, () => {
        this.pull();
        const decision = this.decide(subject, limits, now);
        this.push(false);
        return decision;
      }),
    );
  }

  close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    return this.sync(true);
  }

  /** Reads, merges and writes the counts under the lock; `leaving` takes this process off the list. */
  sync(leaving: boolean): Promise<void> {
    return this.serialised(() =>
      withFileLock(this.file, () => {
        this.pull();
        this.push(leaving);
      }),
    );
  }

  private decide(subject: string, limits: KeyLimits, now: number): RateLimitDecision {
    const decision = applyRateLimit(this.state, { ...limits, key: subject }, this.policy, now);
    this.changed.add(subject);
    if (!this.shared && this.timer === undefined && !this.closed) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.sync(false).catch(() => {});
      }, this.flushMs);
      this.timer.unref();
    }
    return decision;
  }

  private serialised<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.catch(() => {});
    return result;
  }

  /** At most one stat a millisecond: under load that is one per many requests, and a newcomer is noticed within a millisecond. */
  private unchangedOnDisk(): boolean {
    const now = performance.now();
    if (now - this.checkedAt < 1) return true;
    const stats = fs.statSync(this.file, { throwIfNoEntry: false });
    const unchanged = stats !== undefined && stats.ino === this.seen?.ino && stats.mtimeMs === this.seen.mtimeMs;
    if (unchanged) this.checkedAt = now;
    return unchanged;
  }

  /** Merges the file's counts with this process's new requests. Runs under the lock. */
  private pull(): void {
    const document = readLimits(this.file);
    const now = this.clock();
    const merged = document.rateLimits;
    for (const subject of this.changed) {
      const local = this.state[subject];
      if (local) merged[subject] = mergeEntry(merged[subject], this.base[subject], local, this.policy, now);
    }
    this.state = merged;
    this.changed.clear();
    this.processes = document.processes.filter((pid) => pid !== this.pid && isRunning(pid));
    this.shared = this.processes.length > 0;
  }

  /** Writes the counts. Runs under the lock. */
  private push(leaving: boolean): void {
    const now = this.clock();
    for (const [subject, entry] of Object.entries(this.state)) {
      if (isSpent(entry, this.policy, now)) delete this.state[subject];
    }
    const document: LimitsDocument = {
      version: 1,
      processes: leaving ? this.processes : [...this.processes, this.pid],
      rateLimits: this.state,
    };
    // Not flushed: a crash may forget the last counts, and only counts.
    this.seen = writeFileAtomic(this.file, `${JSON.stringify(document)}\n`, { durable: false });
    this.base = structuredClone(this.state);
    this.changed.clear();
  }
}

function readLimits(file: string): LimitsDocument {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, processes: [], rateLimits: {} };
    throw error;
  }
  // Counts only: a damaged file is read as empty rather than stopping the service.
  let value: Partial<LimitsDocument> = {};
  try {
    value = JSON.parse(text) as Partial<LimitsDocument>;
  } catch {
    value = {};
  }
  const processes = Array.isArray(value.processes) ? value.processes.filter((pid) => Number.isSafeInteger(pid) && pid > 0) : [];
  return { version: 1, processes, rateLimits: parseRateLimitState(value.rateLimits) };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** An entry whose windows, limited period and ban are all over holds nothing worth keeping. */
function isSpent(entry: KeyRateState, policy: RateLimitPolicy, now: number): boolean {
  return (
    now >= entry.dayStart + policy.dayMs &&
    (entry.limitedUntil === undefined || now >= entry.limitedUntil) &&
    (entry.bannedUntil === undefined || now >= entry.bannedUntil)
  );
}

/**
 * One subject's counts after this process's requests since `base` are added to
 * what the file holds (`shared`, possibly written by other processes since).
 */
export function mergeEntry(
  shared: KeyRateState | undefined,
  base: KeyRateState | undefined,
  local: KeyRateState,
  policy: RateLimitPolicy,
  now: number,
): KeyRateState {
  if (!shared) return { ...local };
  const window = (start: 'minuteStart' | 'dayStart', count: 'minuteCount' | 'dayCount', length: number) => {
    const added = base !== undefined && local[start] === base[start] ? local[count] - base[count] : local[count];
    return now < shared[start] + length
      ? { start: shared[start], count: shared[count] + Math.max(0, added) }
      : { start: local[start], count: local[count] };
  };
  const minute = window('minuteStart', 'minuteCount', policy.minuteMs);
  const day = window('dayStart', 'dayCount', policy.dayMs);
  const merged: KeyRateState = {
    minuteStart: minute.start,
    minuteCount: minute.count,
    dayStart: day.start,
    dayCount: day.count,
    strikes: Math.max(shared.strikes, local.strikes),
  };
  const limitedUntil = later(shared.limitedUntil, local.limitedUntil);
  if (limitedUntil !== undefined) merged.limitedUntil = limitedUntil;
  const bannedUntil = later(shared.bannedUntil, local.bannedUntil);
  if (bannedUntil !== undefined) merged.bannedUntil = bannedUntil;
  return merged;
}

function later(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}
