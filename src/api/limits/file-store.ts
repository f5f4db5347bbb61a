import fs from 'node:fs';
import { CorruptFileError, readJsonFile, withFileLock, writeFileAtomic } from '../../locked-file';
import { StateUnwritableError, describeFsError } from '../../errors';
import { type LimitEntry, isStale, readEntry } from './entry';
import { type LimitStore, type StoreReport, limitId } from './store';

/** This machine's records, { "version": 1, "limits": { "<limitId>": LimitEntry } }, in a file of their own: conf has no locking. */

/** The file's records by id, read leniently; `dropped` is given the fields dropped, per id. */
function readLimits(file: string, now: number, dropped = new Map<string, string[]>()): Record<string, LimitEntry> {
  let value: unknown;
  try {
    // Only counts and times in it: JSON.parse, not the int64-exact parser.
    value = readJsonFile(file, JSON.parse);
  } catch (error) {
    // The state only holds timings, so a damaged file is dropped rather than blocking every command.
    if (!(error instanceof CorruptFileError)) throw error;
    fs.rmSync(file, { force: true });
  }
  // No prototype: a key named __proto__ in a planted file stays a key.
  const limits: Record<string, LimitEntry> = Object.create(null);
  const stored = (value as { limits?: unknown } | undefined)?.limits;
  if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
    for (const [id, raw] of Object.entries(stored)) {
      const fields: string[] = [];
      const entry = readEntry(raw, now, fields);
      if (fields.length > 0) dropped.set(id, fields);
      if (entry) limits[id] = entry;
    }
  }
  return limits;
}

/** The record of one base URL and key in `file`; `report` hears once a run of what it had to drop. */
export function openFileStore(file: string, baseUrl: string, apiKey: string, now: () => number, options: { report?: StoreReport } = {}): LimitStore {
  let id: string | undefined;
  const ownId = async () => (id ??= await limitId(baseUrl, apiKey));
  let reported = false;

  // Without a lock: writes are atomic renames, so this sees a whole file.
  const read = async (): Promise<LimitEntry | undefined> => {
    const dropped = new Map<string, string[]>();
    const limits = readLimits(file, now(), dropped);
    // A file with no records at all (the usual case) is not even worth hashing the key for.
    if (Object.keys(limits).length === 0 && dropped.size === 0) return undefined;
    const own = await ownId();
    const fields = dropped.get(own);
    if (fields && !reported) {
      reported = true;
      options.report?.({ kind: 'dropped', fields, where: file });
    }
    return limits[own];
  };

  return {
    read,
    async update(change) {
      // A change that writes nothing (waiting, or sending with nothing to count) needs no lock.
      const first = change(await read());
      if (!first.entry) return first.result;
      const own = await ownId();
      try {
        return await withFileLock(file, () => {
          // Written back without what it dropped, and without other keys' stale records.
          const limits = readLimits(file, now());
          const { entry, result } = change(limits[own]);
          if (!entry) return result;
          const at = now();
          for (const [otherId, other] of Object.entries(limits)) if (isStale(other, at)) delete limits[otherId];
          limits[own] = entry;
          writeFileAtomic(file, `${JSON.stringify({ version: 1, limits }, null, 2)}\n`, { durable: false });
          return result;
        });
      } catch (error) {
        // A system error (ENOSPC, EACCES, EROFS...) from the lock or the write; its path may be the lock's or a temporary file's.
        if ((error as { syscall?: unknown }).syscall === undefined) throw error;
        throw new StateUnwritableError(file, describeFsError(error), error);
      }
    },
  };
}
