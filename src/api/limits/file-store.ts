import fs from 'node:fs';
import { CorruptFileError, readJsonFile, withFileLock, writeFileAtomic } from '../../locked-file';
import { StateUnwritableError } from '../../errors';
import { describeFsError } from '../../fs-errors';
import { type LimitEntry, readEntry } from './entry';
import { isStale } from '../waits';
import { type LimitChange, type LimitStore, droppedTimesWarning, limitId } from './store';

/**
 * Rate-limit state shared by every petctl process on this machine, per base
 * URL and API key: blocks after a 429, a ban or an exhausted quota, and the
 * budget of the current window that paced requests draw from (rules.ts
 * decides, gate.ts asks; this file stores). It lives in its own file, not in conf, because
 * conf has no locking for concurrent writers.
 *
 * File shape: { "version": 1, "limits": { "<id>": LimitEntry } } where <id>
 * is a hash of base URL and key: the key itself is never written here.
 */

interface StateFile {
  version: 1;
  limits: Record<string, LimitEntry>;
}

function asStateFile(value: unknown, now: number, onDropped?: (id: string, fields: string[]) => void): StateFile {
  // No prototype: a key named __proto__ in a planted file stays a key.
  const limits: Record<string, LimitEntry> = Object.create(null);
  const raw = (value as { limits?: unknown } | undefined)?.limits;
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [id, entry] of Object.entries(raw as Record<string, unknown>)) {
      const dropped: string[] = [];
      const parsed = readEntry(entry, now, dropped);
      if (dropped.length > 0) onDropped?.(id, dropped);
      if (parsed) limits[id] = parsed;
    }
  }
  return { version: 1, limits };
}

/** The state only holds timings, so a damaged file is dropped rather than blocking every command. */
function readState(file: string, now: number, onDropped?: (id: string, fields: string[]) => void): StateFile {
  try {
    // Only counts and times in it: JSON.parse, not the int64-exact parser.
    return asStateFile(readJsonFile(file, JSON.parse), now, onDropped);
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

export interface FileStoreOptions {
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

/** The record of one base URL and key in `file`. */
export function openFileStore(file: string, baseUrl: string, apiKey: string, now: () => number, options: FileStoreOptions = {}): LimitStore {
  let id: string | undefined;
  const ownId = async () => (id ??= await limitId(baseUrl, apiKey));
  const warnDropped = warnOnce(options.warn, file);
  // Without a lock: writes are atomic renames, so this sees a whole file.
  const read = (): Promise<LimitEntry | undefined> => readOwnEntry(file, now(), ownId, warnDropped);

  /** Locked read-modify-write of this key's entry; writes only when `change` returns a new entry. */
  const locked = async <T>(change: LimitChange<T>): Promise<T> => {
    const own = await ownId();
    try {
      return await withFileLock(file, () => {
        // Written back without what it dropped.
        const state = readState(file, now());
        const { entry, result } = change(state.limits[own]);
        if (entry) {
          const at = now();
          for (const [otherId, other] of Object.entries(state.limits)) if (isStale(other, at)) delete state.limits[otherId];
          state.limits[own] = entry;
          writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`, { durable: false });
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
    read,
    async update(change) {
      // A change that writes nothing (waiting, or sending with nothing to count) needs no lock.
      const first = change(await read());
      if (!first.entry) return first.result;
      return locked(change);
    },
  };
}
