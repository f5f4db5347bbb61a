import type { Pet } from '../schemas/pet';

/**
 * What became of one row: the shape of `-o ndjson` lines and `-o json`
 * elements (property order as the contract shows it). The renderers in
 * output/bulk.ts take these.
 */
export type RowResult =
  | { row: number; line: number; ok: true; pet: Pet }
  /** Created by an earlier import (`at`: when), so not sent again. */
  | { row: number; line: number; ok: true; skipped: 'already_created'; pet: Pet; at: string }
  | { row: number; line: number; ok: false; error: RowError };

/** The server's Error body as received, or petctl's own `invalid_row` / `outcome_unknown` with status 0. */
export type RowError = { code: string; message: string; status: number } & Record<string, unknown>;

export type RowFailure = Extract<RowResult, { ok: false }>;

export const created = (row: number, line: number, pet: Pet): RowResult => ({ row, line, ok: true, pet });
export const skipped = (row: number, line: number, pet: Pet, at: string): RowResult => ({ row, line, ok: true, skipped: 'already_created', pet, at });
export const failed = (row: number, line: number, error: RowError): RowResult => ({ row, line, ok: false, error });
export const invalidRow = (row: number, line: number, reason: string): RowResult => failed(row, line, { code: 'invalid_row', message: reason, status: 0 });
export const unknownOutcome = (row: number, line: number, message: string): RowResult => failed(row, line, { code: 'outcome_unknown', message, status: 0 });

export interface Tally {
  created: number;
  skipped: number;
  rejected: number;
  invalid: number;
  unknown: number;
  /** Of those created, how many without a status (listed by no --status filter). */
  noStatus: number;
}

export function emptyTally(): Tally {
  return { created: 0, skipped: 0, rejected: 0, invalid: 0, unknown: 0, noStatus: 0 };
}

export function count(tally: Tally, result: RowResult): void {
  if (result.ok) {
    if ('skipped' in result) tally.skipped += 1;
    else {
      tally.created += 1;
      if (result.pet.status === undefined) tally.noStatus += 1;
    }
  } else if (result.error.code === 'invalid_row') tally.invalid += 1;
  else if (result.error.code === 'outcome_unknown') tally.unknown += 1;
  else tally.rejected += 1;
}

/** `1 row`, `3 rows`: how every count of the import is written. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
