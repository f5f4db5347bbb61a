import type { Pet } from '../schemas/pet';

/** What became of one row: the shape of `-o ndjson` lines and `-o json` elements, in the contract's property order. */
export type RowResult =
  | { row: number; line: number; ok: true; pet: Pet }
  /** Created by an earlier import (`at`: when), so not sent again. */
  | { row: number; line: number; ok: true; skipped: 'already_created'; pet: Pet; at: string }
  /** --retry-unknown: a row sent earlier without an answer, found among the animals (`found`) or not found and sent again (`resent`). */
  | { row: number; line: number; ok: true; retryUnknown: 'found' | 'resent'; pet: Pet }
  /** --retry-unknown: more than one animal could be the row's (`error.candidates`): neither sent nor recorded. */
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
export const ambiguous = (row: number, line: number, candidates: Array<Pet['id']>, message: string): RowResult => ({
  row,
  line,
  ok: false,
  retryUnknown: 'ambiguous',
  error: { code: 'ambiguous_row', message, status: 0, candidates },
});

export interface Tally {
  created: number;
  skipped: number;
  rejected: number;
  invalid: number;
  unknown: number;
  /** Of those created, how many without a status (listed by no --status filter). */
  noStatus: number;
  /** --retry-unknown: rows found among the animals; rows sent again (also counted in `created`); rows matching more than one. */
  found: number;
  resent: number;
  ambiguous: number;
}

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
