import { type InputEncoding, UndecodableError } from '../decode';
import { RejectedError } from '../../errors';
import type { NewPet } from '../../schemas/pet';
import type { ColumnMapping } from './columns';

/**
 * What every format's reader yields: numbered rows, each validated or with
 * its reason. `row` counts from 1 in file order; `line` is the line of the
 * file where the row starts (in CSV the header is line 1).
 */

export interface InputRow {
  row: number;
  line: number;
  /** The validated body to send; absent when the row is invalid. */
  newPet?: NewPet;
  /** With an id column: the row's value there (the shelter's own id), trimmed; never sent. */
  rowId?: string;
  /** Why the row is invalid. */
  reason?: string;
}

export interface ReadOptions {
  /** `--id-column`: the column or field holding each row's own id. Matched as column names are. */
  idColumn?: string;
  /** Called once per column or field that is neither sent nor the id column, the first time it is seen. */
  onIgnored?: (name: string) => void;
  /** `--encoding`: absent, a BOM names it, else UTF-8 (decode.ts). */
  encoding?: InputEncoding;
  /** `--delimiter`: absent, the CSV header decides (delimiter.ts). */
  delimiter?: string;
  /** `--column`: the CSV headers that fill these fields (columns.ts). */
  columns?: readonly ColumnMapping[];
}

/** The input as a whole cannot be read as its format (no JSON array, a bad CSV header, an empty file): exit 6. */
export class InvalidInputError extends RejectedError {
  constructor(message: string) {
    super(message, { code: 'invalid_input' });
  }
}

/** The service caps bodies at 64 KiB; a "row" far beyond that is a broken file, and is not buffered whole. */
export const MAX_ROW_CHARS = 1 << 20;
export const TOO_LONG = `longer than ${MAX_ROW_CHARS / 1024} KiB`;

/** The input stops being decodable at `line` (in the row in progress, if any): it is refused whole. */
export function refuseUndecodable(error: unknown, line: number, row?: number): unknown {
  if (!(error instanceof UndecodableError)) return error;
  return new InvalidInputError(`line ${line}${row === undefined ? '' : ` (row ${row})`}: ${error.message}`);
}
