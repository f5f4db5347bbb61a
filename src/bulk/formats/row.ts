import { type InputEncoding, UndecodableError } from '../decode';
import { RejectedError } from '../../errors';
import { parseJson } from '../../schemas/json';
import { newPetProblem } from '../../schemas/new-pet-rules';
import { NewPet } from '../../schemas/pet';
import { petStatusOf } from '../../schemas/constants';
import { type ColumnMapping, columnKey } from './columns';

/** What every format's reader yields (rows numbered from 1, validated as a single add is), and what they share. */

export interface InputRow {
  row: number;
  line: number;
  /** Absent when the row is invalid (`reason`). */
  newPet?: NewPet;
  /** The --id-column's value (the shelter's own id), trimmed; never sent. */
  rowId?: string;
  reason?: string;
}

export interface ReadOptions {
  /** Matched as column names are. */
  idColumn?: string;
  /** Once per column or field that is neither sent nor the id column. */
  onIgnored?: (name: string) => void;
  encoding?: InputEncoding;
  /** Absent: the CSV header decides. */
  delimiter?: string;
  columns?: readonly ColumnMapping[];
}

/** The input as a whole cannot be read (no JSON array, a bad CSV header, an empty file): exit 6. */
export class InvalidInputError extends RejectedError {
  constructor(message: string) {
    super(message, { code: 'invalid_input' });
  }
}

/** The service caps bodies at 64 KiB; a "row" far beyond that is a broken file, and is not buffered whole. */
export const MAX_ROW_CHARS = 1 << 20;
export const TOO_LONG = `longer than ${MAX_ROW_CHARS / 1024} KiB`;

export function refuseUndecodable(error: unknown, line: number, row?: number): unknown {
  if (!(error instanceof UndecodableError)) return error;
  return new InvalidInputError(`line ${line}${row === undefined ? '' : ` (row ${row})`}: ${error.message}`);
}

/** A record as textRecords cuts it: `open`, when a quote is left open at the end, counts the lines after its first. */
type TextRecord = { text: string; line: number; tooLong: boolean; undecodable?: unknown; open?: number };

/** Records at line ends (outside quotes when `quoted`), one held at most, cut past the cap; blank lines skipped.
 * When `quoted` (CSV), a CR alone ends a line too: what Excel's "CSV (Macintosh)" writes. */
export async function* textRecords(text: AsyncIterable<string>, quoted: boolean): AsyncGenerator<TextRecord> {
  let line = 1;
  let recordLine = 1;
  let inQuotes = false;
  let record = '';
  let tooLong = false;
  // Where in the piece a CR ended a line (-1: the last character of the piece before):
  // a LF right after it is that line end.
  let crAt = -2;
  try {
    for await (const piece of text) {
      let start = 0;
      for (let i = 0; i < piece.length; i++) {
        const ch = piece.charCodeAt(i);
        if (ch === 34 /* " */ && quoted) inQuotes = !inQuotes;
        else if (ch === 10 /* \n */ || (ch === 13 /* \r */ && quoted && !inQuotes)) {
          if (ch === 10 && crAt === i - 1) {
            start = i + 1;
            continue;
          }
          line += 1;
          if (inQuotes) continue;
          if (ch === 13) crAt = i;
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
      crAt = crAt === piece.length - 1 ? -1 : -2;
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
  const open = inQuotes ? { open: line - (record.endsWith('\n') ? 1 : 0) - recordLine } : {};
  if (tooLong || record.trim() !== '') yield { text: record, line: recordLine, tooLong, ...open };
}

export function ignoredOnce(options: ReadOptions): (name: string) => void {
  const seen = new Set<string>();
  return (name) => {
    if (!seen.has(name)) options.onIgnored?.(name);
    seen.add(name);
  };
}

function rowIdOf(value: unknown, column: string): { rowId: string } | { reason: string } {
  if (typeof value === 'string' && value.trim() !== '') return { rowId: value.trim() };
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isFinite(value))) return { rowId: String(value) };
  if (value === undefined || value === null || value === '' || (typeof value === 'string' && value.trim() === '')) return { reason: `${column}: required (the --id-column)` };
  return { reason: `${column}: must be a string or a number (the --id-column)` };
}

/** A row's NewPet with its id column's value: both reasons when both are bad. */
export function withRowId(pet: ReturnType<typeof validateNewPet>, idValue: unknown, column: string): Omit<InputRow, 'row' | 'line'> {
  const id = rowIdOf(idValue, column);
  if ('reason' in id) return { reason: 'reason' in pet ? `${pet.reason}; ${id.reason}` : id.reason };
  return { ...pet, ...id };
}

function validateFields(fields: Record<string, unknown>, options: ReadOptions): Omit<InputRow, 'row' | 'line'> {
  const sent: Record<string, unknown> = {};
  let idValue: unknown;
  const idKey = options.idColumn === undefined ? undefined : columnKey(options.idColumn);
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'status' && typeof value === 'string') sent.status = petStatusOf(value) ?? value;
    else if (name === 'name' || name === 'categoryId' || name === 'status') sent[name] = value;
    else if (idKey !== undefined && columnKey(name) === idKey) idValue = value;
    else options.onIgnored?.(name);
  }
  const pet = validateNewPet(sent);
  return idKey === undefined ? pet : withRowId(pet, idValue, options.idColumn!.trim());
}

export function validateNewPet(value: unknown): { newPet: NewPet } | { reason: string } {
  const result = NewPet.safeParse(value);
  if (!result.success) return { reason: result.error.issues.map((issue) => newPetProblem(issue, value)).join('; ') };
  // The schema trims the name; a name of spaces must fail here as it does for a single add.
  if (result.data.name.trim() === '') return { reason: 'name: must not be empty' };
  return { newPet: result.data };
}

/** Integers of 16 or more digits may be beyond 2^53, where JSON.parse would round them. */
const LONG_NUMBER = /\d{16}/;

export function rowFromJsonText(row: number, line: number, text: string, options: ReadOptions): InputRow {
  let value: unknown;
  try {
    // JSON.parse leaves far less garbage; the lossless parser only where a number could lose digits.
    value = LONG_NUMBER.test(text) ? parseJson(text) : JSON.parse(text);
  } catch (error) {
    return { row, line, reason: `not valid JSON (${(error as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { row, line, ...validateNewPet(value) };
  return { row, line, ...validateFields(value as Record<string, unknown>, options) };
}
