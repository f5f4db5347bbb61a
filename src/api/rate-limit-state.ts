import fs from 'node:fs';
import { CorruptFileError, readJsonFile, updateJsonFile } from '../config/locked-file';

/**
 * Rate-limit state shared by every petctl process, per base URL and API key:
 * after a 429 (or when X-RateLimit-Remaining reached 0) the next process must
 * not send before the window reopens, or a shell loop would keep hammering the
 * service and get the key banned. It lives in its own file, not in conf,
 * because conf has no locking for concurrent writers.
 *
 * File shape: { "version": 1, "limits": { "<id>": { "blockedUntil": <epoch ms>, "reason": "..." } } }
 * where <id> is a hash of base URL and key: the key itself is never written here.
 */

export type BlockReason = 'rate_limited' | 'key_banned' | 'quota_exhausted';

export interface RateLimitBlock {
  blockedUntil: number;
  reason: BlockReason;
}

export interface RateLimitGate {
  /** The block in force for this base URL and key, if any (may be in the past). */
  current(): RateLimitBlock | undefined;
  /** Records that nothing may be sent before `until`; a later existing block is kept. */
  block(until: number, reason: BlockReason): Promise<void>;
}

interface StateFile {
  version: 1;
  limits: Record<string, RateLimitBlock>;
}

/** Entries this old are dropped when the file is next written. */
const PRUNE_AFTER_MS = 24 * 60 * 60 * 1000;

export async function limitId(baseUrl: string, apiKey: string): Promise<string> {
  // Loaded on demand: most runs have no recorded limits and never hash. Not
  // with import(): bin/petctl.js runs the bundle through vm.Script, which has
  // no dynamic-import callback, so import('node:crypto') threw there (exit 1 on every 429).
  const { createHash } = process.getBuiltinModule('node:crypto');
  return createHash('sha256').update(`${baseUrl}\n${apiKey}`).digest('hex').slice(0, 32);
}

function asStateFile(value: unknown): StateFile {
  const limits: Record<string, RateLimitBlock> = {};
  const raw = (value as { limits?: unknown } | undefined)?.limits;
  if (raw && typeof raw === 'object') {
    for (const [id, entry] of Object.entries(raw as Record<string, unknown>)) {
      const e = entry as Partial<RateLimitBlock> | undefined;
      if (e && typeof e.blockedUntil === 'number' && typeof e.reason === 'string') {
        limits[id] = { blockedUntil: e.blockedUntil, reason: e.reason as BlockReason };
      }
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

export async function openRateLimitState(file: string, baseUrl: string, apiKey: string, now: () => number): Promise<RateLimitGate> {
  // Read once without a lock: writes are atomic renames, so this sees a whole file.
  const initial = readState(file);
  let id: string | undefined;
  const ownId = async () => (id ??= await limitId(baseUrl, apiKey));
  let known = Object.keys(initial.limits).length > 0 ? initial.limits[await ownId()] : undefined;

  return {
    current: () => known,
    async block(until, reason) {
      if (known && known.blockedUntil >= until) return;
      readState(file); // drops a damaged file before the locked update reads it
      const own = await ownId();
      const written = await updateJsonFile(file, (current) => {
        const state = asStateFile(current);
        const cutoff = now() - PRUNE_AFTER_MS;
        for (const [otherId, entry] of Object.entries(state.limits)) {
          if (entry.blockedUntil < cutoff) delete state.limits[otherId];
        }
        const existing = state.limits[own];
        if (!existing || existing.blockedUntil < until) state.limits[own] = { blockedUntil: until, reason };
        return state;
      });
      known = written.limits[own];
    },
  };
}
