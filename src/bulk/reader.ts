import { parse as parseCsvRecord } from 'csv-parse/sync';
import { type InputEncoding, UndecodableError, decodeText } from './decode';
import { sniffDelimiter } from './delimiter';
import { ExitCode, PetctlError } from '../errors';
import { parseJson } from '../schemas/json';
import { int64Problem, parseInt64 } from '../schemas/int64';
import { petStatusOf } from '../schemas/status';
import { NewPet } from '../schemas/pet';

/**
 * The bulk reader: turns the bytes of a JSON array, NDJSON or CSV file into
 * numbered rows, each validated with the NewPet schema single adds use. It
 * streams: one row's text (in CSV, one batch of records) is held at a time,
 * and nothing lives long enough to reach V8's old generation, so a 100 MB file
 * costs a few MB of memory. `row` counts from 1 in file order; `line` is the line
 * of the file where the row starts (in CSV the header is line 1).
 */

export const INPUT_FORMATS = ['json', 'ndjson', 'csv'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

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
}

/** CSV column names that are sent, as written in lower case, and the NewPet field each fills. */
const CSV_COLUMNS: Record<string, keyof NewPet> = {
  name: 'name',
  categoryid: 'categoryId',
  category_id: 'categoryId',
  'category-id': 'categoryId',
  status: 'status',
};
/** How column and field names are compared: trimmed, in any case. */
const columnKey = (name: string) => name.trim().toLowerCase();

/** The NewPet field a column name fills, if any. */
export function sentField(column: string): keyof NewPet | undefined {
  return CSV_COLUMNS[columnKey(column)];
}

/** Per input: which names were ignored already, so each is named once. */
function ignoredOnce(options: ReadOptions): (name: string) => void {
  const seen = new Set<string>();
  return (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    options.onIgnored?.(name);
  };
}

/** The id column's value as a row's id: a non-empty string or a whole number. */
function rowIdOf(value: unknown, column: string): { rowId: string } | { reason: string } {
  if (typeof value === 'string' && value.trim() !== '') return { rowId: value.trim() };
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isFinite(value))) return { rowId: String(value) };
  if (value === undefined || value === null || value === '' || (typeof value === 'string' && value.trim() === '')) return { reason: `${column}: required (the --id-column)` };
  return { reason: `${column}: must be a string or a number (the --id-column)` };
}

/** Validates a row's fields: the sent ones with the NewPet schema, the id column's value; the rest is ignored. */
function validateFields(fields: Record<string, unknown>, options: ReadOptions, ignore: (name: string) => void): Omit<InputRow, 'row' | 'line'> {
  const sent: Record<string, unknown> = {};
  let idValue: unknown;
  const idKey = options.idColumn === undefined ? undefined : columnKey(options.idColumn);
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'status' && typeof value === 'string') sent.status = petStatusOf(value) ?? value;
    else if (name === 'name' || name === 'categoryId' || name === 'status') sent[name] = value;
    else if (idKey !== undefined && columnKey(name) === idKey) idValue = value;
    else ignore(name);
  }
  const pet = validateNewPet(sent);
  if (idKey === undefined) return pet;
  const id = rowIdOf(idValue, options.idColumn!.trim());
  if ('reason' in id) return { reason: 'reason' in pet ? `${pet.reason}; ${id.reason}` : id.reason };
  return { ...pet, ...id };
}

/** The input as a whole cannot be read as its format (no JSON array, a bad CSV header, an empty file): exit 6. */
export class InvalidInputError extends PetctlError {
  constructor(message: string) {
    super(ExitCode.REJECTED, message, { code: 'invalid_input' });
  }
}

/** The service caps bodies at 64 KiB; a "row" far beyond that is a broken file, and is not buffered whole. */
const MAX_ROW_CHARS = 1 << 20;
const TOO_LONG = `longer than ${MAX_ROW_CHARS / 1024} KiB`;

/** The format a file's extension names, if any. */
export function formatFromExtension(path: string): InputFormat | undefined {
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();
  if (ext === 'json') return 'json';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  if (ext === 'csv') return 'csv';
  return undefined;
}

/** The format the first non-blank character suggests: `[` a JSON array, `{` NDJSON, anything else CSV. */
export function formatFromContent(firstChar: string): InputFormat {
  return firstChar === '[' ? 'json' : firstChar === '{' ? 'ndjson' : 'csv';
}

/** Validates one parsed value with the NewPet schema, as a row reason on failure. */
export function validateNewPet(value: unknown): { newPet: NewPet } | { reason: string } {
  const result = NewPet.safeParse(value);
  if (!result.success) return { reason: result.error.issues.map((issue) => describeIssue(issue, value)).join('; ') };
  // The schema trims the name; a name of spaces must fail here as it does for a single add.
  if (result.data.name.trim() === '') return { reason: 'name: must not be empty' };
  return { newPet: result.data };
}

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  values?: unknown[];
}

/** zod/mini carries no English messages ("Invalid input"), so each issue is said here, field first. */
function describeIssue(issue: Issue, value: unknown): string {
  const field = issue.path.map(String).join('.');
  if (field === '') {
    if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys!.map((key) => JSON.stringify(key)).join(', ')} (allowed: name, categoryId, status)`;
    return 'must be an object {"name":…,"categoryId":…,"status":…}';
  }
  if ((value as Record<string, unknown>)[field] === undefined) return `${field}: required`;
  const given = (value as Record<string, unknown>)[field];
  if (issue.code === 'invalid_value') return `${field} must be one of ${issue.values!.map(String).join(', ')}, not ${asTyped(given)}`;
  if (field === 'categoryId') return `categoryId ${int64Problem(typeof given === 'number' || typeof given === 'bigint' ? String(given) : '')}, not ${asTyped(given)}`;
  if (field === 'name' && issue.code === 'invalid_type') return `name must be a string, not ${asTyped(given)}`;
  if (field === 'name' && issue.code === 'too_small') return 'name: must not be empty';
  return `${field}: ${issue.message}`;
}

/** A cell or field as the file has it: a text in quotes, a number or other JSON value as written. */
function asTyped(value: unknown): string {
  return typeof value === 'bigint' ? String(value) : JSON.stringify(value) ?? String(value);
}

/** Integers of 16 or more digits may be beyond 2^53, where JSON.parse would round them. */
const LONG_NUMBER = /\d{16}/;

function rowFromJsonText(row: number, line: number, text: string, options: ReadOptions, ignore: (name: string) => void): InputRow {
  let value: unknown;
  try {
    // JSON.parse is native and leaves far less garbage than the lossless parser, which matters on
    // a 100 MB file; the lossless parser is needed only where a number could lose digits.
    value = LONG_NUMBER.test(text) ? parseJson(text) : JSON.parse(text);
  } catch (error) {
    return { row, line, reason: `not valid JSON (${(error as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { row, line, ...validateNewPet(value) };
  return { row, line, ...validateFields(value as Record<string, unknown>, options, ignore) };
}

/** The input stops being decodable at `line` (in the row in progress, if any): it is refused whole. */
function refuseUndecodable(error: unknown, line: number, row?: number): unknown {
  if (!(error instanceof UndecodableError)) return error;
  return new InvalidInputError(`line ${line}${row === undefined ? '' : ` (row ${row})`}: ${error.message}`);
}

/** Lines of text made of whitespace alone: how many line breaks they hold. */
function lineBreaks(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}

/**
 * Reads the rows of `chunks`. `format` undefined means: decide from the
 * content (the first non-blank character). Throws InvalidInputError when the
 * input as a whole is unusable; a bad row is yielded with its reason.
 */
export async function* readRows(
  chunks: AsyncIterable<Buffer>,
  format: InputFormat | undefined,
  onFormat?: (chosen: InputFormat) => void,
  options: ReadOptions = {},
): AsyncGenerator<InputRow> {
  const text = decodeText(chunks, options.encoding);
  // Look ahead to the first non-blank character, for detection and to refuse an empty input. The
  // blank text before it is kept as its line breaks only: an endless stream of spaces holds nothing.
  let blankLines = 0;
  let head = '';
  try {
    // Not for-await with break: breaking would close the stream.
    for (let next = await text.next(); !next.done; next = await text.next()) {
      if (/\S/.test(next.value)) {
        head = next.value;
        break;
      }
      blankLines += lineBreaks(next.value);
    }
  } catch (error) {
    throw refuseUndecodable(error, blankLines + 1);
  }
  const firstChar = /\S/.exec(head)?.[0];
  if (firstChar === undefined) throw new InvalidInputError('the input is empty: no rows to import');
  const all = (async function* () {
    for (; blankLines > 0; blankLines -= PIECE_LINES) yield '\n'.repeat(Math.min(blankLines, PIECE_LINES));
    yield head;
    yield* text;
  })();
  const chosen = format ?? formatFromContent(firstChar);
  onFormat?.(chosen);
  if (chosen === 'json') yield* jsonArrayRows(all, options);
  else if (chosen === 'ndjson') yield* ndjsonRows(all, options);
  else yield* csvRows(all, options);
}

/** Blank lines before the first row are handed on this many at a time. */
const PIECE_LINES = 1024;

/** NDJSON: one value per line; blank lines are skipped but still counted. */
async function* ndjsonRows(text: AsyncIterable<string>, options: ReadOptions): AsyncGenerator<InputRow> {
  const ignore = ignoredOnce(options);
  let line = 0;
  let row = 0;
  for await (const { text: lineText, tooLong, undecodable } of lines(text)) {
    if (undecodable) throw refuseUndecodable(undecodable, line + 1, row + 1);
    line += 1;
    if (!tooLong && lineText.trim() === '') continue;
    row += 1;
    yield tooLong ? { row, line, reason: TOO_LONG } : rowFromJsonText(row, line, lineText, options, ignore);
  }
}

/** Splits text into lines (LF or CRLF), without holding more than one line; a line past the cap is cut and flagged. */
async function* lines(text: AsyncIterable<string>): AsyncGenerator<{ text: string; tooLong: boolean; undecodable?: unknown }> {
  let pending = '';
  let tooLong = false;
  try {
    for await (const piece of text) {
      let start = 0;
      for (let end = piece.indexOf('\n'); end !== -1; end = piece.indexOf('\n', start)) {
        const part = pending + piece.slice(start, end);
        yield { text: part.endsWith('\r') ? part.slice(0, -1) : part, tooLong: tooLong || part.length > MAX_ROW_CHARS };
        pending = '';
        tooLong = false;
        start = end + 1;
      }
      pending += piece.slice(start);
      if (pending.length > MAX_ROW_CHARS) {
        pending = '';
        tooLong = true;
      }
    }
  } catch (error) {
    // The line in progress is where the input stops being text: the reader says so with its row.
    yield { text: '', tooLong: false, undecodable: error };
    return;
  }
  if (pending !== '' || tooLong) yield { text: pending.endsWith('\r') ? pending.slice(0, -1) : pending, tooLong };
}

/**
 * A JSON array, element by element. JSON.parse needs the whole text, and
 * streaming JSON libraries give neither line numbers nor exact int64s, so this
 * scanner only finds where each top-level element starts and ends (tracking
 * strings and nesting) and hands each element's text to the lossless parser.
 */
async function* jsonArrayRows(text: AsyncIterable<string>, options: ReadOptions): AsyncGenerator<InputRow> {
  const ignore = ignoredOnce(options);
  let line = 1;
  let state: 'before' | 'between' | 'element' | 'after' = 'before';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let element = '';
  let elementLine = 0;
  let tooLong = false;
  let row = 0;

  const finishElement = (): InputRow => {
    row += 1;
    const result = tooLong ? { row, line: elementLine, reason: TOO_LONG } : rowFromJsonText(row, elementLine, element, options, ignore);
    element = '';
    tooLong = false;
    return result;
  };

  // Where the input stops being text, the row in progress (if any) says where.
  const pieces = (async function* () {
    try {
      yield* text;
    } catch (error) {
      throw refuseUndecodable(error, line, (state as string) === 'before' || (state as string) === 'after' ? undefined : row + 1);
    }
  })();
  for await (const piece of pieces) {
    let chunkStart = 0;
    for (let i = 0; i < piece.length; i++) {
      const ch = piece[i]!;
      if (ch === '\n') line += 1;
      if (state === 'element') {
        if (inString) {
          if (escaped) escaped = false;
          else if (ch === '\\') escaped = true;
          else if (ch === '"') inString = false;
          continue;
        }
        if (ch === '"') inString = true;
        else if (ch === '{' || ch === '[') depth += 1;
        else if ((ch === '}' || ch === ']') && depth > 0) depth -= 1;
        else if (depth === 0 && (ch === ',' || ch === ']')) {
          element += piece.slice(chunkStart, i);
          yield finishElement();
          state = ch === ',' ? 'between' : 'after';
          continue;
        }
        if (element.length + (i - chunkStart) > MAX_ROW_CHARS) {
          tooLong = true;
          element = '';
          chunkStart = i + 1;
        }
        continue;
      }
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') continue;
      if (state === 'before') {
        if (ch !== '[') throw new InvalidInputError(`line ${line}: not a JSON array (found ${JSON.stringify(ch)}); for one object per line use --format ndjson`);
        state = 'between';
      } else if (state === 'between') {
        if (ch === ']' && row === 0) {
          state = 'after';
        } else if (ch === ',' || ch === ']') {
          row += 1;
          yield { row, line, reason: 'missing value (an extra comma?)' };
          if (ch === ']') state = 'after';
        } else {
          state = 'element';
          elementLine = line;
          depth = 0;
          inString = false;
          escaped = false;
          element = '';
          chunkStart = i;
          // Scan this character again as the element's first.
          i -= 1;
        }
      } else {
        throw new InvalidInputError(`line ${line}: unexpected ${JSON.stringify(ch)} after the end of the JSON array`);
      }
    }
    if (state === 'element') element += piece.slice(chunkStart);
  }
  if (state === 'element') {
    const pending = finishElement();
    throw new InvalidInputError(`line ${pending.line} (row ${pending.row}): the input ends inside this row (truncated?); the JSON array is not closed`);
  }
  if ((state as string) !== 'after') throw new InvalidInputError(`line ${line}: the input ends before the JSON array is closed with "]" (truncated?)`);
}

/**
 * CSV (RFC 4180) with a header row. Records are split here, tracking quotes,
 * so each row knows its starting line and a bad record never derails the
 * ones after it; csv-parse then reads the fields of each record.
 */
async function* csvRows(text: AsyncIterable<string>, options: ReadOptions): AsyncGenerator<InputRow> {
  let header: CsvHeader | undefined;
  let row = 0;
  for await (const record of csvFields(text, options.delimiter)) {
    if (record.undecodable) throw refuseUndecodable(record.undecodable, record.line, header === undefined ? undefined : row + 1);
    // A row of empty fields is what a spreadsheet writes for an empty row (`,,,`): a blank line.
    if (record.fields?.every((field) => field.trim() === '')) continue;
    if (header === undefined) {
      if (record.reason) throw new InvalidInputError(`line ${record.line}: the CSV header cannot be read: ${record.reason}`);
      header = csvHeader(record.fields!, record.line, options);
      continue;
    }
    row += 1;
    const { line, fields, reason } = record;
    if (reason) {
      yield { row, line, reason };
    } else if (fields!.length !== header.columns.length) {
      yield { row, line, reason: `expected ${header.columns.length} fields (${header.names.join(',')}), found ${fields!.length}` };
    } else {
      const pet = validateNewPet(csvValue(header.columns, fields!));
      if (header.idIndex === undefined) yield { row, line, ...pet };
      else {
        const id = rowIdOf(fields![header.idIndex], header.names[header.idIndex]!.trim());
        if ('reason' in id) yield { row, line, reason: 'reason' in pet ? `${pet.reason}; ${id.reason}` : id.reason };
        else yield { row, line, ...pet, ...id };
      }
    }
  }
  if (header === undefined) throw new InvalidInputError('the input is empty: no CSV header');
}

type CsvOptions = { relax_column_count: true; record_delimiter: '\n'; delimiter: string };
const csvOptions = (delimiter: string): CsvOptions => ({ relax_column_count: true, record_delimiter: '\n', delimiter });
/** Records parsed by one csv-parse call: one call per record would cost ~20 µs each, a minute on a 100 MB file. */
const CSV_BATCH = 512;
/** The batch's text, as bytes (csv-parse reads bytes; a string it would first copy to a Buffer). */
const CSV_BATCH_BYTES = 64 * 1024;

type CsvRecord = { line: number; fields?: string[]; reason?: string; undecodable?: unknown };

/**
 * Each record's fields, parsed by csv-parse in batches; a batch with a bad record is parsed record
 * by record. The batch lives in buffers reused from one batch to the next (the records' UTF-8 bytes,
 * their lines and ends), not as an object per record: on a long file those objects would outlive
 * the young generation and be promoted, and the old generation grew ~20 MB between full GCs.
 */
async function* csvFields(text: AsyncIterable<string>, delimiter: string | undefined): AsyncGenerator<CsvRecord> {
  const batch = { bytes: Buffer.allocUnsafe(CSV_BATCH_BYTES), length: 0, count: 0, lines: new Array<number>(CSV_BATCH).fill(0), ends: new Array<number>(CSV_BATCH).fill(0) };
  let options: CsvOptions | undefined;
  for await (const record of csvRecords(text)) {
    if (record.undecodable) {
      yield* parseBatch(batch, options ?? csvOptions(','));
      yield { line: record.line, undecodable: record.undecodable };
      return;
    }
    // The first record is the header, which decides the delimiter when --delimiter does not.
    options ??= csvOptions(delimiter ?? sniffDelimiter(record.text));
    // Separated by "\n" (the record delimiter), as 3 bytes per UTF-16 unit at most.
    if (batch.count > 0 && batch.length + 1 + record.text.length * 3 > CSV_BATCH_BYTES) {
      yield* parseBatch(batch, options);
    }
    if (record.tooLong) {
      batch.ends[batch.count] = -1;
    } else if (record.text.length * 3 > CSV_BATCH_BYTES) {
      // A record too long for the batch buffer (rare: a row far beyond a valid NewPet) is parsed alone.
      yield csvRecordFields(record.line, Buffer.from(record.text), options);
      continue;
    } else {
      // Between records with bytes only: a record too long to read has none in the batch.
      if (batch.length > 0) batch.bytes[batch.length++] = 10;
      batch.length += batch.bytes.write(record.text, batch.length);
      batch.ends[batch.count] = batch.length;
    }
    batch.lines[batch.count++] = record.line;
    if (batch.count === CSV_BATCH) yield* parseBatch(batch, options);
  }
  if (options) yield* parseBatch(batch, options);
}

interface CsvBatch {
  bytes: Buffer;
  length: number;
  count: number;
  lines: number[];
  /** Where each record's bytes end in `bytes`; -1 for a record too long to read. */
  ends: number[];
}

/** Yields the batch's records, then empties it. */
function* parseBatch(batch: CsvBatch, options: CsvOptions): Generator<CsvRecord> {
  let parsed: string[][] | undefined;
  let whole = 0;
  for (let i = 0; i < batch.count; i++) if (batch.ends[i] !== -1) whole += 1;
  if (whole > 0) {
    try {
      parsed = parseCsvRecord(batch.bytes.subarray(0, batch.length), options) as string[][];
      if (parsed.length !== whole) parsed = undefined;
    } catch {
      parsed = undefined;
    }
  }
  let index = 0;
  let start = 0;
  for (let i = 0; i < batch.count; i++) {
    const line = batch.lines[i]!;
    const end = batch.ends[i]!;
    if (end === -1) {
      yield { line, reason: TOO_LONG };
      continue;
    }
    if (parsed) yield { line, fields: parsed[index++]! };
    else yield csvRecordFields(line, batch.bytes.subarray(start, end), options);
    start = end + 1;
  }
  batch.length = 0;
  batch.count = 0;
}

function csvRecordFields(line: number, bytes: Buffer, options: CsvOptions): CsvRecord {
  try {
    return { line, fields: (parseCsvRecord(bytes, options) as string[][])[0] ?? [''] };
  } catch (error) {
    return { line, reason: csvReason(error) };
  }
}

function csvReason(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'CSV_QUOTE_NOT_CLOSED') return 'a quoted field is not closed (truncated file?)';
  if (code === 'CSV_INVALID_CLOSING_QUOTE') return 'bad quoting: a closing quote must end its field (write "" for a quote inside one)';
  return `bad CSV: ${(error as Error).message}`;
}

interface CsvHeader {
  /** The header's names as written. */
  names: string[];
  /** The NewPet field each column fills; undefined for the id column and ignored columns. */
  columns: Array<keyof NewPet | undefined>;
  /** The --id-column's index. */
  idIndex?: number;
}

function csvHeader(names: string[], line: number, options: ReadOptions): CsvHeader {
  const columns: Array<keyof NewPet | undefined> = [];
  const ignore = ignoredOnce(options);
  const idKey = options.idColumn === undefined ? undefined : columnKey(options.idColumn);
  let idIndex: number | undefined;
  names.forEach((name, index) => {
    const column = sentField(name);
    if (column !== undefined && columns.includes(column)) throw new InvalidInputError(`line ${line}: column ${column} appears twice in the CSV header`);
    if (column === undefined && idKey !== undefined && columnKey(name) === idKey) {
      if (idIndex !== undefined) throw new InvalidInputError(`line ${line}: the --id-column ${JSON.stringify(options.idColumn)} appears twice in the CSV header`);
      idIndex = index;
    } else if (column === undefined) ignore(name.trim());
    columns.push(column);
  });
  const missing = (['name', 'categoryId'] as const).filter((column) => !columns.includes(column));
  if (missing.length > 0) {
    // One column only: its names are likely separated by another character.
    const other = names.length === 1 ? '; if its columns are separated by another character, give it with --delimiter' : '';
    throw new InvalidInputError(`line ${line}: the CSV header lacks ${missing.join(' and ')}; expected name,categoryId,status${other}`);
  }
  if (idKey !== undefined && idIndex === undefined) {
    throw new InvalidInputError(`line ${line}: the CSV header has no column ${JSON.stringify(options.idColumn)} (--id-column); its columns: ${names.map((name) => name.trim()).join(',')}`);
  }
  return { names, columns, idIndex };
}

/** A CSV row as a NewPet candidate: categoryId as an exact int64 when it is one, a status in any case, an empty one as none. */
function csvValue(columns: Array<keyof NewPet | undefined>, fields: string[]): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  columns.forEach((column, index) => {
    const cell = fields[index]!;
    if (column === undefined) return;
    if (column === 'name') value.name = cell;
    else if (column === 'categoryId') {
      const trimmed = cell.trim();
      // A whole number beyond int64 stays a number, so its message names the range.
      if (trimmed !== '') value.categoryId = parseInt64(trimmed) ?? (/^-?[1-9]\d*$/.test(trimmed) ? BigInt(trimmed) : trimmed);
    } else if (cell.trim() !== '') value.status = petStatusOf(cell) ?? cell.trim();
  });
  return value;
}

/**
 * Splits CSV text into records at line ends outside quotes. Blank lines (empty, or only spaces:
 * never a valid row, which needs at least name and categoryId) are skipped but counted.
 */
async function* csvRecords(text: AsyncIterable<string>): AsyncGenerator<{ text: string; line: number; tooLong: boolean; undecodable?: unknown }> {
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
        if (ch === 34 /* " */) inQuotes = !inQuotes;
        else if (ch === 10 /* \n */) {
          line += 1;
          if (inQuotes) continue;
          let full = record + piece.slice(start, i);
          if (full.endsWith('\r')) full = full.slice(0, -1);
          if (tooLong || full.trim() !== '') yield { text: full, line: recordLine, tooLong };
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
