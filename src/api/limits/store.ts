import { sha256Hex } from '../../digest';
import type { LimitEntry } from './entry';

/**
 * Where a key's rate-limit record is kept: the state file on this machine
 * (file-store.ts) or Redis, shared by machines (redis-store.ts). Every store
 * passes one contract suite (test/api/limits/store-contract.ts).
 */

/**
 * A change to the record, a pure function of it: `entry` is the record to
 * write (undefined: write nothing), `result` what the caller gets. A store may
 * run it more than once (before taking a lock, after a conflict), so it must
 * not act on anything but its argument.
 */
export type LimitChange<T> = (entry: LimitEntry | undefined) => { entry?: LimitEntry; result: T };

export interface LimitStore {
  /** The record as last written by any process, on this machine's clock. */
  read(): Promise<LimitEntry | undefined>;
  /**
   * Runs `change` on the current record and writes what it returns, atomically against every other process.
   * `what`: the step's name in -v traces (acquire, record).
   */
  update<T>(change: LimitChange<T>, what?: string): Promise<T>;
}

/** The record's name in every store: a hash of base URL and key, so the key itself is never written. */
export async function limitId(baseUrl: string, apiKey: string): Promise<string> {
  return (await sha256Hex(`${baseUrl}\n${apiKey}`)).slice(0, 32);
}

/** The one warning for a record whose times were dropped (`where`: the state file, or the store's address). */
export function droppedTimesWarning(fields: readonly string[], where: string): string {
  return `ignored ${fields.join(', ')} in the rate-limit state at ${where}: not a time petctl could have stored (not a number, or more than a day past the longest wait the service can ask for)`;
}
