import fs from 'node:fs';
import { CorruptFileError, readJsonFile, withFileLock, writeFileAtomic } from '../locked-file';
import { sha256Hex } from '../digest';
import { stringifyJson } from '../schemas/json';
import { type BlockReason, type GateDecision, type LimitEntry, type RateAnswer, decide, isStale, observe } from './pacing';

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
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** Reads an entry leniently: fields of the wrong shape are dropped (they only hold timings). */
export function asEntry(raw: unknown): LimitEntry | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const e = raw as Record<string, unknown>;
  const entry: LimitEntry = {};
  if (isTime(e.blockedUntil) && typeof e.reason === 'string' && REASONS.has(e.reason)) {
    entry.blockedUntil = e.blockedUntil;
    entry.reason = e.reason as BlockReason;
  }
  const w = e.window as Record<string, unknown> | undefined;
  if (w && isTime(w.reset) && isTime(w.resetAt) && isTime(w.remaining)) {
    entry.window = { reset: w.reset, resetAt: w.resetAt, remaining: w.remaining, ...(isTime(w.limit) ? { limit: w.limit } : {}) };
  }
  if (isTime(e.probeUntil)) entry.probeUntil = e.probeUntil;
  if (isTime(e.holdMs)) entry.holdMs = e.holdMs;
  return Object.keys(entry).length > 0 ? entry : undefined;
}

function asStateFile(value: unknown): StateFile {
  const limits: Record<string, LimitEntry> = {};
  const raw = (value as { limits?: unknown } | undefined)?.limits;
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [id, entry] of Object.entries(raw as Record<string, unknown>)) {
      const parsed = asEntry(entry);
      if (parsed) limits[id] = parsed;
    }
  }
  return { version: 1, limits };
}

/** The state only holds timings, so a damaged file is dropped rather than blocking every command. */
function readState(file: string): StateFile {
  try {
    return asStateFile(readJsonFile(file));
  } catch (error) {
    if (!(error instanceof CorruptFileError)) throw error;
    fs.rmSync(file, { force: true });
    return asStateFile(undefined);
  }
}

export interface RateLimitStateOptions {
  /** How long other paced requests wait for a probe's answer at most (its request timeout, capped). */
  probeLeaseMs?: number;
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

  // Without a lock: writes are atomic renames, so this sees a whole file. A
  // file with no entries at all (the usual case) is not even worth hashing the key for.
  const peek = async (): Promise<LimitEntry | undefined> => {
    const { limits } = readState(file);
    return Object.keys(limits).length > 0 ? limits[await ownId()] : undefined;
  };

  /** Locked read-modify-write of this key's entry; writes only when `change` returns a new entry. */
  const update = async <T>(change: (entry: LimitEntry | undefined) => { entry?: LimitEntry; result: T }): Promise<T> => {
    const own = await ownId();
    readState(file); // drops a damaged file before the locked update reads it
    return withFileLock(file, () => {
      const state = readState(file);
      const { entry, result } = change(state.limits[own]);
      if (entry) {
        const at = now();
        for (const [otherId, other] of Object.entries(state.limits)) if (isStale(other, at)) delete state.limits[otherId];
        state.limits[own] = entry;
        writeFileAtomic(file, `${stringifyJson(state, 2)}\n`, { durable: false });
      }
      return result;
    });
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
export async function lastSeenLimits(file: string, identity: string, apiKey: string, now: number): Promise<LastSeenLimits | undefined> {
  const { limits } = readState(file);
  if (Object.keys(limits).length === 0) return undefined;
  const entry = limits[await limitId(identity, apiKey)];
  const blocked = entry?.blockedUntil !== undefined && entry.blockedUntil > now;
  const window = entry?.window !== undefined && entry.window.resetAt > now ? entry.window : undefined;
  if (!blocked && !window) return undefined;
  return {
    ...(window ? { limit: window.limit, remaining: window.remaining, resetAt: window.resetAt } : {}),
    ...(blocked ? { blockedUntil: entry.blockedUntil, reason: entry.reason } : {}),
  };
}
