import { type InputEncoding, UndecodableError } from '../decode';
import { RejectedError } from '../../errors';
import type { NewPet } from '../../schemas/pet';
import type { ColumnMapping } from './columns';

/** What every format's reader yields: rows numbered from 1, each validated or with its reason, and the line where it starts. */

export interface InputRow {
  row: number;
  line: number;
  /** The validated body to send; absent when the row is invalid. */
  newPet?: NewPet;
  /** With an id column: the row's value there (the shelter's own id), trimmed; never sent. */
  rowId?: string;
  reason?: string;
}

export interface ReadOptions {
  /** `--id-column`: the column or field holding each row's own id. Matched as column names are. */
  idColumn?: string;
  /** Called once per column or field that is neither sent nor the id column, the first time it is seen. */
  onIgnored?: (name: string) => void;
  /** `--encoding`: absent, a BOM names it, else UTF-8 (decode.ts). */
  encoding?: InputEncoding;
  /** `--delimiter`: absent, the CSV header decides (csv-records.ts). */
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

/**
 * Splits text into records at line ends (LF or CRLF), outside quotes when `quoted` (CSV), holding one
 * record at most; a record past the cap is cut and flagged. Blank lines are skipped but counted.
 */
export async function* textRecords(text: AsyncIterable<string>, quoted: boolean): AsyncGenerator<{ text: string; line: number; tooLong: boolean; undecodable?: unknown }> {
  let line = 1;
  let recordLine = 1;
  let inQuotes = false;
  let record = '';
  let tooLong = false;
  try {
    for await (const piece of text) {
      let start = 0;
      for (let i = 0; i < piece.length; i++) {
        const ch = piece.charCodeAt(i);
        if (ch === 34 /* " */ && quoted) inQuotes = !inQuotes;
        else if (ch === 10 /* \n */) {
          line += 1;
          if (inQuotes) continue;
          let full = record + piece.slice(start, i);
          if (full.endsWith('\r')) full = full.slice(0, -1);
          const cut = tooLong || full.length > MAX_ROW_CHARS;
          if (cut || full.trim() !== '') yield { text: full, line: recordLine, tooLong: cut };
          record = '';
          tooLong = false;
          start = i + 1;
          recordLine = line;
        }
      }
      record += piece.slice(start);
      if (record.length > MAX_ROW_CHARS) {
        record = '';
        tooLong = true;
      }
    }
  } catch (error) {
    // The record in progress is where the input stops being text: the reader says so with its row.
    yield { text: '', line, tooLong: false, undecodable: error };
    return;
  }
  if (record.endsWith('\r')) record = record.slice(0, -1);
  if (tooLong || record.trim() !== '') yield { text: record, line: recordLine, tooLong };
}
