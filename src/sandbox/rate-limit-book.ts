import fs from 'node:fs';

import { limitsFileOf } from '../config/paths';
import { withFileLock, writeFileAtomic } from '../locked-file';
import { applyRateLimit, parseRateLimitState, type KeyLimits, type KeyRateState, type RateLimitDecision, type RateLimitPolicy, type RateLimitState } from './rate-limiter';

/**
 * The counts per subject (an API key, or `address:<ip>`), shared by the processes on a data file through
 * `<data file>.limits.json` (docs/sandbox.md): one alone counts in memory and writes at most once a second; when the
 * file changed or another live process is listed, each request reads, merges and writes under the file's lock.
 */
export interface RateLimitBook {
  /** Synchronous unless other processes share the file. */
  check(subject: string, limits: KeyLimits, now: number): RateLimitDecision | Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export function memoryRateLimits(policy: RateLimitPolicy): RateLimitBook {
  const state: RateLimitState = {};
  return {
    check: (subject, limits, now) => applyRateLimit(state, { ...limits, key: subject }, policy, now),
    close: async () => {},
  };
}

/** Opens the counts beside `dataFile` and lists this process in them. */
export async function openFileRateLimits(
  dataFile: string,
  policy: RateLimitPolicy,
  now: () => number = Date.now,
): Promise<RateLimitBook> {
  const file = limitsFileOf(dataFile);
  let state: RateLimitState = {};
  /** The counts as last written or read: what this process added since is the difference. */
  let base: RateLimitState = {};
  let shared = false;
  let seen: { ino: number; mtimeMs: number } | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const sync = <T>(step: () => T, leaving = false): Promise<T> =>
    withFileLock(file, () => {
      const document = readLimits(file);
      const merged = document.rateLimits;
      for (const [subject, local] of Object.entries(state)) merged[subject] = mergeEntry(merged[subject], base[subject], local, policy, now());
      state = merged;
      const others = document.processes.filter((other) => other !== process.pid && isRunning(other));
      shared = others.length > 0;
      const result = step();
      for (const [subject, entry] of Object.entries(state)) if (isSpent(entry, policy, now())) delete state[subject];
      const text = JSON.stringify({ version: 1, processes: leaving ? others : [...others, process.pid], rateLimits: state });
      // Not flushed: a crash may forget the last counts, and only counts.
      seen = writeFileAtomic(file, `${text}\n`, { durable: false });
      base = structuredClone(state);
      return result;
    });

  const decide = (subject: string, limits: KeyLimits, at: number): RateLimitDecision => applyRateLimit(state, { ...limits, key: subject }, policy, at);

  const unchangedOnDisk = (): boolean => {
    const at = performance.now();
    if (at - checkedAt < 1) return true;
    const stats = fs.statSync(file, { throwIfNoEntry: false });
    const unchanged = stats?.ino === seen?.ino && stats?.mtimeMs === seen?.mtimeMs;
    if (unchanged) checkedAt = at;
    return unchanged;
  };

  await sync(() => {});
  return {
    check: (subject, limits, at) => {
      if (shared || closed || !unchangedOnDisk()) return sync(() => decide(subject, limits, at));
      timer ??= setTimeout(() => {
        timer = undefined;
        sync(() => {}).catch(() => {});
      }, FLUSH_MS).unref();
      return decide(subject, limits, at);
    },
    close: () => {
      closed = true;
      clearTimeout(timer);
      return sync(() => {}, true);
    },
  };
}

/** How long a lone process's counts may wait in memory: what a crash can forget. */
const FLUSH_MS = 1000;

function readLimits(file: string): { processes: number[]; rateLimits: RateLimitState } {
  let value: { processes?: unknown; rateLimits?: unknown } = {};
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    // Counts only: a damaged file is read as empty rather than stopping the service.
    if (!(error instanceof SyntaxError) && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const processes = Array.isArray(value?.processes) ? value.processes.filter((pid) => Number.isSafeInteger(pid) && pid > 0) : [];
  return { processes, rateLimits: parseRateLimitState(value?.rateLimits) };
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

/** An entry whose windows, limited period and ban are all over. */
function isSpent(entry: KeyRateState, policy: RateLimitPolicy, now: number): boolean {
  return now >= entry.dayStart + policy.dayMs && now >= (entry.limitedUntil ?? 0) && now >= (entry.bannedUntil ?? 0);
}

/** One subject's counts: this process's requests since `base` added to what the file holds (`shared`, maybe written by others since). */
export function mergeEntry(
  shared: KeyRateState | undefined,
  base: KeyRateState | undefined,
  local: KeyRateState,
  policy: RateLimitPolicy,
  now: number,
): KeyRateState {
  if (!shared) return { ...local };
  const window = (start: 'minuteStart' | 'dayStart', count: 'minuteCount' | 'dayCount', length: number): [number, number] => {
    const added = base !== undefined && local[start] === base[start] ? local[count] - base[count] : local[count];
    return now < shared[start] + length ? [shared[start], shared[count] + Math.max(0, added)] : [local[start], local[count]];
  };
  const [minuteStart, minuteCount] = window('minuteStart', 'minuteCount', policy.minuteMs);
  const [dayStart, dayCount] = window('dayStart', 'dayCount', policy.dayMs);
  const merged: KeyRateState = { minuteStart, minuteCount, dayStart, dayCount, strikes: Math.max(shared.strikes, local.strikes) };
  const limitedUntil = Math.max(shared.limitedUntil ?? 0, local.limitedUntil ?? 0);
  const bannedUntil = Math.max(shared.bannedUntil ?? 0, local.bannedUntil ?? 0);
  return { ...merged, ...(limitedUntil > 0 ? { limitedUntil } : {}), ...(bannedUntil > 0 ? { bannedUntil } : {}) };
}
