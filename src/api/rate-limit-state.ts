import fs from 'node:fs';
import { CorruptFileError, readJsonFile, withFileLock, writeFileAtomic } from '../locked-file';
import { sha256Hex } from '../digest';
import { stringifyJson } from '../schemas/json';
import { ExitCode, PetctlError } from '../errors';
import { describeFsError } from '../bulk/fs-errors';
import { type BlockReason, type GateDecision, type LimitEntry, type RateAnswer, decide, isStale, observe } from './pacing';
import { MAX_PLAUSIBLE_RESET_MS } from './retry';

export type { BlockReason } from './pacing';

/**
 * Rate-limit state shared by every petctl process on this machine, per base
 * URL and API key: blocks after a 429, a ban or an exhausted quota, and the
 * budget of the current window that paced requests draw from (pacing.ts
 * decides; this file stores). It lives in its own file, not in conf, because
 * conf has no locking for concurrent writers.
 *
 * File shape: { "version": 1, "limits": { "<id>": LimitEntry } } where <id>
 * is a hash of base URL and key: the key itself is never written here.
 */

export interface RateLimitGate {
  /**
   * Whether one more request may go now (taking one from the shared budget when one is tracked), or until when to wait.
   * `reserve`: for a paced request, how many of the window's requests to leave to others (see pacing.decide).
   */
  acquire(paced: boolean, reserve?: number): Promise<GateDecision>;
  /** Records what an answer said about the limits. */
  record(answer: RateAnswer, paced: boolean): Promise<void>;
  /** The record for this base URL and key, as last written by any process. */
  current(): Promise<LimitEntry | undefined>;
}

/**
 * state.json cannot be written (a full disk, a read-only directory): the
 * request that needed it is not sent, since the limits it holds for every
 * petctl on the machine would no longer be kept (exit 1).
 */
export class StateUnwritableError extends PetctlError {
  constructor(
    readonly file: string,
    readonly reason: string,
    cause: unknown,
  ) {
    super(ExitCode.FAILURE, `cannot write the rate-limit state file ${file}: ${reason}`, {
      code: 'state_unwritable',
      hint: 'free some space on its disk or make its directory writable again, then rerun the command; the request was not sent',
      cause,
    });
  }
}

interface StateFile {
  version: 1;
  limits: Record<string, LimitEntry>;
}

/**
 * A paced request that never answers (its process was killed) holds up the
 * others no longer than this. Short: should a slow answer outlive it, one more
 * probe goes out at the start of a window, when the budget is full anyway.
 */
export const MAX_PROBE_LEASE_MS = 1_000;

export async function limitId(baseUrl: string, apiKey: string): Promise<string> {
  return (await sha256Hex(`${baseUrl}\n${apiKey}`)).slice(0, 32);
}

const REASONS = new Set<string>(['rate_limited', 'key_banned', 'quota_exhausted']);
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
 * Reads an entry leniently: fields of the wrong shape are dropped (they only
 * hold timings). `dropped` is given the name of every field that was present
 * but not a time petctl could have stored, so the caller can warn.
 */
export function asEntry(raw: unknown, now: number, dropped: string[] = []): LimitEntry | undefined {
  if (!raw || typeof raw !== 'object') {
    if (raw !== undefined && raw !== null) dropped.push('the record');
    return undefined;
  }
  const latest = now + MAX_STORED_AHEAD_MS;
  const e = raw as Record<string, unknown>;
  /** A time (epoch ms) present in the record: kept when plausible, otherwise named in `dropped`. */
  const time = (name: string, value: unknown, scale = 1): value is number => {
    if (value === undefined) return false;
    if (isCount(value) && value * scale <= latest) return true;
    dropped.push(name);
    return false;
  };
  const entry: LimitEntry = {};
  if (time('blockedUntil', e.blockedUntil)) {
    if (typeof e.reason === 'string' && REASONS.has(e.reason)) {
      entry.blockedUntil = e.blockedUntil;
      entry.reason = e.reason as BlockReason;
    } else dropped.push('reason');
  }
  const w = e.window as Record<string, unknown> | undefined;
  if (w !== undefined) {
    // reset is X-RateLimit-Reset as sent: Unix seconds.
    const times = [time('window.reset', w?.reset, 1000), time('window.resetAt', w?.resetAt)].every(Boolean);
    if (times && isCount(w.remaining)) {
      entry.window = { reset: w.reset as number, resetAt: w.resetAt as number, remaining: w.remaining, ...(isCount(w.limit) ? { limit: w.limit } : {}) };
    } else if (times) dropped.push('window.remaining');
  }
  if (time('probeUntil', e.probeUntil)) entry.probeUntil = e.probeUntil;
  // A hold's length (a duration, not a time): it doubles up to HOLD_CAP_MS.
  if (isCount(e.holdMs)) entry.holdMs = e.holdMs;
  return Object.keys(entry).length > 0 ? entry : undefined;
}

/** The one warning for a record whose times were dropped (`where`: the state file, or the store's address). */
export function droppedTimesWarning(fields: readonly string[], where: string): string {
  return `ignored ${fields.join(', ')} in the rate-limit state at ${where}: not a time petctl could have stored (not a number, or more than a day past the longest wait the service can ask for)`;
}

function asStateFile(value: unknown, now: number, onDropped?: (id: string, fields: string[]) => void): StateFile {
  const limits: Record<string, LimitEntry> = {};
  const raw = (value as { limits?: unknown } | undefined)?.limits;
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [id, entry] of Object.entries(raw as Record<string, unknown>)) {
      const dropped: string[] = [];
      const parsed = asEntry(entry, now, dropped);
      if (dropped.length > 0) onDropped?.(id, dropped);
      if (parsed) limits[id] = parsed;
    }
  }
  return { version: 1, limits };
}

/** The state only holds timings, so a damaged file is dropped rather than blocking every command. */
function readState(file: string, now: number, onDropped?: (id: string, fields: string[]) => void): StateFile {
  try {
    return asStateFile(readJsonFile(file), now, onDropped);
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error;
    fs.rmSync(file, { force: true });
    return asStateFile(undefined, now);
  }
}

/**
 * This key's entry in the file, warning once (through `warn`) when times in
 * it had to be dropped; entries of other keys are dropped silently.
 */
async function readOwnEntry(file: string, now: number, ownId: () => Promise<string>, warnDropped?: (fields: string[]) => void): Promise<LimitEntry | undefined> {
  const dropped = new Map<string, string[]>();
  const { limits } = readState(file, now, (id, fields) => dropped.set(id, fields));
  // A file with no entries at all (the usual case) is not even worth hashing the key for.
  if (Object.keys(limits).length === 0 && dropped.size === 0) return undefined;
  const own = await ownId();
  const fields = dropped.get(own);
  if (fields) warnDropped?.(fields);
  return limits[own];
}

export interface RateLimitStateOptions {
  /** How long other paced requests wait for a probe's answer at most (its request timeout, capped). */
  probeLeaseMs?: number;
  /** `warning: …` on stderr: once, when this key's entry held times that were dropped. */
  warn?: (message: string) => void;
}

/** A `warn` that speaks once per run: the entry is read before every request. */
function warnOnce(warn: ((message: string) => void) | undefined, file: string): (fields: string[]) => void {
  let warned = false;
  return (fields) => {
    if (warned || !warn) return;
    warned = true;
    warn(droppedTimesWarning(fields, file));
  };
}

export async function openRateLimitState(
  file: string,
  baseUrl: string,
  apiKey: string,
  now: () => number,
  options: RateLimitStateOptions = {},
): Promise<RateLimitGate> {
  const probeLeaseMs = Math.min(options.probeLeaseMs ?? MAX_PROBE_LEASE_MS, MAX_PROBE_LEASE_MS);
  let id: string | undefined;
  const ownId = async () => (id ??= await limitId(baseUrl, apiKey));

  const warnDropped = warnOnce(options.warn, file);
  // Without a lock: writes are atomic renames, so this sees a whole file.
  const peek = (): Promise<LimitEntry | undefined> => readOwnEntry(file, now(), ownId, warnDropped);

  /** Locked read-modify-write of this key's entry; writes only when `change` returns a new entry. */
  const update = async <T>(change: (entry: LimitEntry | undefined) => { entry?: LimitEntry; result: T }): Promise<T> => {
    const own = await ownId();
    readState(file, now()); // drops a damaged file before the locked update reads it
    try {
      return await withFileLock(file, () => {
        // Written back without what it dropped.
        const state = readState(file, now());
        const { entry, result } = change(state.limits[own]);
        if (entry) {
          const at = now();
          for (const [otherId, other] of Object.entries(state.limits)) if (isStale(other, at)) delete state.limits[otherId];
          state.limits[own] = entry;
          writeFileAtomic(file, `${stringifyJson(state, 2)}\n`, { durable: false });
        }
        return result;
      });
    } catch (error) {
      // A system error (ENOSPC, EACCES, EROFS...) from the lock or the write; its path may be the lock's or a temporary file's.
      if ((error as { syscall?: unknown }).syscall === undefined) throw error;
      throw new StateUnwritableError(file, describeFsError(error), error);
    }
  };

  return {
    current: peek,
    async acquire(paced, reserve) {
      const first = decide(await peek(), now(), paced, probeLeaseMs, reserve);
      // Waiting, or sending without changing anything, needs no lock.
      if (!first.go || !first.entry) return first;
      return update((entry) => {
        const decision = decide(entry, now(), paced, probeLeaseMs, reserve);
        return { entry: decision.go ? decision.entry : undefined, result: decision };
      });
    },
    async record(answer, paced) {
      if (!observe(await peek(), answer, now(), paced)) return;
      await update((entry) => ({ entry: observe(entry, answer, now(), paced), result: undefined }));
    },
  };
}

/** What this machine last saw of a key's limits, while it still holds (`profile show`). */
export interface LastSeenLimits {
  limit?: number;
  remaining?: number;
  resetAt?: number;
  blockedUntil?: number;
  reason?: BlockReason;
}

/** Reads the record without a lock and without writing; undefined when nothing current is known. */
export async function lastSeenLimits(
  file: string,
  identity: string,
  apiKey: string,
  now: number,
  warn?: (message: string) => void,
): Promise<LastSeenLimits | undefined> {
  const entry = await readOwnEntry(file, now, () => limitId(identity, apiKey), warnOnce(warn, file));
  const blocked = entry?.blockedUntil !== undefined && entry.blockedUntil > now;
  const window = entry?.window !== undefined && entry.window.resetAt > now ? entry.window : undefined;
  if (!blocked && !window) return undefined;
  return {
    ...(window ? { limit: window.limit, remaining: window.remaining, resetAt: window.resetAt } : {}),
    ...(blocked ? { blockedUntil: entry.blockedUntil, reason: entry.reason } : {}),
  };
}
