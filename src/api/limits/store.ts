import { sha256Hex } from '../../digest';
import type { LimitEntry } from './entry';
import type { StoreFailure } from './redis-failures';

/** A change to the record, a pure function of it as a store may run it again: the record to write, if any, and the caller's result. */
export type LimitChange<T> = (entry: LimitEntry | undefined) => { entry?: LimitEntry; result: T };

/** Where a key's rate-limit record is kept, on this machine's clock: file-store.ts or redis-store.ts. */
export interface LimitStore {
  read(): Promise<LimitEntry | undefined>;
  /** Atomic against every other process; `what`: its name in -v traces. */
  update<T>(change: LimitChange<T>, what?: string): Promise<T>;
}

export type StoreNotice =
  /** Fields of the record at `where` (the state file, or the store's address and key) were not values petctl could have stored. */
  | { kind: 'dropped'; fields: string[]; where: string }
  /** A call (`what`) to the shared store failed: a -v trace line. */
  | { kind: 'failed'; what: string; failure: StoreFailure }
  /** The shared store at `where` is left for this machine's state file for the rest of the run. */
  | { kind: 'fallback'; where: string; failure: StoreFailure };
export type StoreReport = (notice: StoreNotice) => void;

/** The record's name in every store: a hash of base URL and key, so the key itself is never written. */
export async function limitId(baseUrl: string, apiKey: string): Promise<string> {
  return (await sha256Hex(`${baseUrl}\n${apiKey}`)).slice(0, 32);
}
