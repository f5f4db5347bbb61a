import fs from 'node:fs';
import * as z from 'zod/mini';

import { limitsFileOf } from '../config/paths';
import { CorruptFileError, readJsonFile, withFileLock, writeFileAtomic } from '../locked-file';
import type { SandboxKey } from './keys';

/**
 * The plans' rules (docs/sandbox.md, "Windows" and "The ban"), as pure functions of (state, limits, policy, now); and the
 * counts per subject (an API key, or `address:<ip>`): in memory, or shared through `<data file>.limits.json`.
 */

interface RateLimitPolicy {
  minuteMs: number;
  dayMs: number;
  /** Requests tolerated after the first 429 while still limited; one more bans the key. */
  banAfter: number;
  banMs: number;
}

export type RateLimitPolicyOptions = Partial<Pick<RateLimitPolicy, 'minuteMs' | 'banAfter'>>;

export function rateLimitPolicy(options: RateLimitPolicyOptions = {}): RateLimitPolicy {
  const minuteMs = options.minuteMs ?? 60_000;
  const policy = { minuteMs, dayMs: 1440 * minuteMs, banAfter: options.banAfter ?? 10, banMs: 10 * minuteMs };
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isSafeInteger(value) || value < (name === 'banAfter' ? 0 : 1)) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  return policy;
}

const Count = z.int().check(z.gte(0));

/** Per key, in epoch ms and counts: `limitedUntil` ends the limited period the first 429 opened. */
const KeyRateState = z.object({
  minuteStart: Count,
  minuteCount: Count,
  dayStart: Count,
  dayCount: Count,
  limitedUntil: z.optional(Count),
  strikes: Count,
  bannedUntil: z.optional(Count),
});
export type KeyRateState = z.infer<typeof KeyRateState>;

export type RateLimitState = Record<string, KeyRateState>;

export type KeyLimits = Pick<SandboxKey, 'perMinute' | 'perDay'>;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetEpochSeconds: number;
  /** When refused: Retry-After in whole seconds (≥ 1), and whether the key is banned (`key_banned`). */
  retryAfterSeconds?: number;
  banned?: boolean;
}

/** Decides one request of a key, its counts in `state` brought up to date. */
export function applyRateLimit(
  state: RateLimitState,
  key: Pick<SandboxKey, 'key' | 'perMinute' | 'perDay'>,
  policy: RateLimitPolicy,
  now: number,
): RateLimitDecision {
  const entry = (state[key.key] ??= { minuteStart: now, minuteCount: 0, dayStart: now, dayCount: 0, strikes: 0 });
  if (entry.bannedUntil !== undefined && now < entry.bannedUntil) return refusal(key, entry.bannedUntil, now, true);
  // A ban that is over, or a limited period waited out: the strikes are forgiven.
  if (entry.bannedUntil !== undefined || (entry.limitedUntil !== undefined && now >= entry.limitedUntil)) {
    delete entry.bannedUntil;
    delete entry.limitedUntil;
    entry.strikes = 0;
  }
  if (now >= entry.minuteStart + policy.minuteMs) {
    entry.minuteStart = nextWindowStart(entry.minuteStart + policy.minuteMs, now);
    entry.minuteCount = 0;
  }
  if (now >= entry.dayStart + policy.dayMs) {
    entry.dayStart = nextWindowStart(entry.dayStart + policy.dayMs, now);
    entry.dayCount = 0;
  }
  const minuteReset = entry.minuteStart + policy.minuteMs;
  const dayReset = entry.dayStart + policy.dayMs;
  // When the windows with none left reset (0 while both have some).
  const emptyUntil = (minuteLeft: number, dayLeft: number): number => Math.max(minuteLeft <= 0 ? minuteReset : 0, dayLeft <= 0 ? dayReset : 0);

  const acceptedAgainAt = emptyUntil(key.perMinute - entry.minuteCount, key.perDay - entry.dayCount);
  if (acceptedAgainAt > 0) {
    entry.strikes = entry.limitedUntil === undefined ? 0 : entry.strikes + 1;
    entry.limitedUntil = acceptedAgainAt;
    if (entry.strikes <= policy.banAfter) return refusal(key, acceptedAgainAt, now, false);
    entry.bannedUntil = now + policy.banMs;
    return refusal(key, entry.bannedUntil, now, true);
  }

  entry.minuteCount += 1;
  entry.dayCount += 1;
  const minuteLeft = key.perMinute - entry.minuteCount;
  const dayLeft = key.perDay - entry.dayCount;
  const remaining = Math.min(minuteLeft, dayLeft);
  // The binding window: the one with fewer left (the minute on a tie); once none are left, when requests are accepted again.
  const resetAt = remaining === 0 ? emptyUntil(minuteLeft, dayLeft) : dayLeft < minuteLeft ? dayReset : minuteReset;
  return { allowed: true, limit: key.perMinute, remaining, resetEpochSeconds: Math.ceil(resetAt / 1000) };
}

/** X-RateLimit-Reset is rounded up, so a client that waits for it comes back up to a second late: such a key keeps its
 * schedule rather than losing that second every window; after a longer pause a new window opens. */
function nextWindowStart(previousEnd: number, now: number): number {
  return now - previousEnd < 2000 ? previousEnd : now;
}

function refusal(limits: KeyLimits, until: number, now: number, banned: boolean): RateLimitDecision {
  return {
    allowed: false,
    limit: limits.perMinute,
    remaining: 0,
    resetEpochSeconds: Math.ceil(until / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)),
    ...(banned ? { banned: true } : {}),
  };
}

/** A persisted state read leniently: entries that are not well formed are dropped (they only hold counts). */
export function parseRateLimitState(value: unknown): RateLimitState {
  const entries = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.entries(value) : [];
  return Object.fromEntries(entries.filter(([, entry]) => KeyRateState.safeParse(entry).success));
}

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

/** How long a lone process's counts may wait in memory: what a crash can forget. */
const FLUSH_MS = 1000;

/**
 * The counts beside `dataFile`, this process listed in them (docs/sandbox.md): alone it counts in memory and writes at
 * most once a second; when the file changed or another live process is listed, each request reads, merges and writes.
 */
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

  const decide = (subject: string, limits: KeyLimits, at: number) => applyRateLimit(state, { ...limits, key: subject }, policy, at);

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

function readLimits(file: string): { processes: number[]; rateLimits: RateLimitState } {
  let value: { processes?: unknown; rateLimits?: unknown } | undefined;
  try {
    value = readJsonFile(file, JSON.parse) as typeof value;
  } catch (error) {
    // Counts only: a damaged file is read as empty rather than stopping the service.
    if (!(error instanceof CorruptFileError)) throw error;
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
