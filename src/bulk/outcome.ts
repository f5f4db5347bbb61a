import { InterruptedError, type PetctlError, RateLimitError } from '../errors';
import type { Pet } from '../schemas/pet';
import type { JournalHolder } from './journal-lock';

/** What became of each row, and how the import ended: facts, worded by output/import-end.ts. */

/** The shape of `-o ndjson` lines and `-o json` elements, in the contract's property order. */
export type RowResult =
  | { row: number; line: number; ok: true; pet: Pet }
  /** Created by an earlier import (`at`: when), so not sent again. */
  | { row: number; line: number; ok: true; skipped: 'already_created'; pet: Pet; at: string }
  /** --retry-unknown: found among the animals, or not found and sent again. */
  | { row: number; line: number; ok: true; retryUnknown: 'found' | 'resent'; pet: Pet }
  /** --retry-unknown: more than one animal could be the row's: neither sent nor recorded. */
  | { row: number; line: number; ok: false; retryUnknown: 'ambiguous'; error: RowError & { candidates: Array<Pet['id']> } }
  | { row: number; line: number; ok: false; error: RowError };

/** The server's Error body as received, or petctl's own `invalid_row` / `outcome_unknown` / `ambiguous_row` with status 0. */
type RowError = { code: string; message: string; status: number } & Record<string, unknown>;

export type RowFailure = Extract<RowResult, { ok: false }>;

export const created = (row: number, line: number, pet: Pet): RowResult => ({ row, line, ok: true, pet });
export const skipped = (row: number, line: number, pet: Pet, at: string): RowResult => ({ row, line, ok: true, skipped: 'already_created', pet, at });
export const failed = (row: number, line: number, error: RowError): RowResult => ({ row, line, ok: false, error });
export const invalidRow = (row: number, line: number, reason: string): RowResult => failed(row, line, { code: 'invalid_row', message: reason, status: 0 });
export const unknownOutcome = (row: number, line: number, message: string): RowResult => failed(row, line, { code: 'outcome_unknown', message, status: 0 });
export const found = (row: number, line: number, pet: Pet): RowResult => ({ row, line, ok: true, retryUnknown: 'found', pet });
export const resent = (row: number, line: number, pet: Pet): RowResult => ({ row, line, ok: true, retryUnknown: 'resent', pet });
export const ambiguous = (row: number, line: number, candidates: Array<Pet['id']>, message: string): RowResult => {
  const error: RowError & { candidates: Array<Pet['id']> } = { code: 'ambiguous_row', message, status: 0, candidates };
  return { row, line, ok: false, retryUnknown: 'ambiguous', error };
};

/** `noStatus`: of those created, how many have no status (no --status filter lists them); `resent`: also `created`. */
export type Tally = Record<'created' | 'skipped' | 'rejected' | 'invalid' | 'unknown' | 'noStatus' | RetryKey, number>;
type RetryKey = 'found' | 'resent' | 'ambiguous';

export function emptyTally(): Tally {
  return { created: 0, skipped: 0, rejected: 0, invalid: 0, unknown: 0, noStatus: 0, found: 0, resent: 0, ambiguous: 0 };
}

export function count(tally: Tally, result: RowResult): void {
  if (result.ok) {
    if ('skipped' in result) tally.skipped += 1;
    else if ('retryUnknown' in result && result.retryUnknown === 'found') tally.found += 1;
    else {
      tally.created += 1;
      if ('retryUnknown' in result) tally.resent += 1;
      if (result.pet.status === undefined) tally.noStatus += 1;
    }
  } else if ('retryUnknown' in result) tally.ambiguous += 1;
  else if (result.error.code === 'invalid_row') tally.invalid += 1;
  else if (result.error.code === 'outcome_unknown') tally.unknown += 1;
  else tally.rejected += 1;
}

/** `interrupted`: Ctrl-C (or SIGTERM) ended sending. */
export type ImportFacts = Pick<Tally, 'rejected' | 'invalid' | 'unknown' | 'ambiguous'> & {
  interrupted: boolean;
  stoppedBy?: PetctlError;
};

export type ImportEnding =
  | { kind: 'interrupted' | 'unknown' | 'ambiguous' | 'rejected' | 'done' }
  /** The journal or the rate-limit state file could not be written. */
  | { kind: 'unwritable'; error: PetctlError }
  | { kind: 'rate_limited'; error: RateLimitError }
  | { kind: 'stopped'; error: PetctlError };

const UNWRITABLE = new Set(['journal_unwritable', 'state_unwritable']);

/** When several endings apply, the first of: 130 (Ctrl-C), 5 (the rate limit), another error's code, 7, 6, 0. */
export function importEnding({ interrupted, stoppedBy, rejected, invalid, unknown, ambiguous }: ImportFacts): ImportEnding {
  if (interrupted || stoppedBy instanceof InterruptedError) return { kind: 'interrupted' };
  if (stoppedBy !== undefined && UNWRITABLE.has(stoppedBy.code)) return { kind: 'unwritable', error: stoppedBy };
  if (stoppedBy instanceof RateLimitError) return { kind: 'rate_limited', error: stoppedBy };
  if (stoppedBy !== undefined) return { kind: 'stopped', error: stoppedBy };
  if (unknown > 0) return { kind: 'unknown' };
  if (ambiguous > 0) return { kind: 'ambiguous' };
  if (rejected + invalid > 0) return { kind: 'rejected' };
  return { kind: 'done' };
}

/** `left`: rows not reported, left for a rerun; `notSent`: rows to send that this run did not send. */
export interface ImportEnd {
  ending: ImportEnding;
  /** Every row counted, those announced before sending (skipped, invalid) too. */
  tally: Tally;
  left: number;
  notSent: number;
  runMs: number;
  journal: string;
}

/** Why an import stopped before it sent (`ended`: the journal was not writable, or --retry-unknown's look stopped). */
export type ImportStop =
  | { kind: 'invalid_input'; invalid: number; rows: number; skipInvalid: boolean; dryRun: boolean }
  | { kind: 'journal_busy'; journal: string; holder: JournalHolder; maxWaitMs: number }
  /** A page of --retry-unknown's listing as full as asked for came without a next link. */
  | { kind: 'listing_incomplete'; page: number; size: number; notFound: number }
  | { kind: 'ended'; ending: ImportEnding; left: number };

export class ImportStopped extends Error {
  constructor(readonly stop: ImportStop) {
    super(`the import stopped: ${stop.kind}`);
  }
}

export function stoppedBeforeSending(error: PetctlError, left: number): ImportStopped {
  const ending = importEnding({ ...emptyTally(), interrupted: false, stoppedBy: error });
  return new ImportStopped({ kind: 'ended', ending, left });
}
