import { StringDecoder } from 'node:string_decoder';
import { parse as parseCsvRecord } from 'csv-parse/sync';
import { ExitCode, PetctlError } from '../errors';
import { parseJson } from '../schemas/json';
import { parseInt64 } from '../schemas/int64';
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
    if (name === 'name' || name === 'categoryId' || name === 'status') sent[name] = value;
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
  if (issue.code === 'invalid_value') return `${field}: must be one of ${issue.values!.map(String).join(', ')}`;
  if (field === 'categoryId') return 'categoryId: must be an int64 (a whole number)';
  if (field === 'name' && issue.code === 'invalid_type') return 'name: must be a string';
  if (field === 'name' && issue.code === 'too_small') return 'name: must not be empty';
  return `${field}: ${issue.message}`;
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

/**
 * Text is decoded 1 KB at a time. The rows cut from a piece of text keep the whole piece alive
 * (V8 slices share their parent's characters); a short piece dies young, where a 32 KB one
 * outlives a scavenge or two and is promoted, growing the old generation until a full GC
 * (CSV, 100 MB: peak RSS ~92 MB with whole chunks, ~77 MB with 1 KB pieces).
 */
const PIECE_BYTES = 1024;

/** Decodes UTF-8 chunks to text, dropping a leading BOM. */
async function* decode(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let first = true;
  for await (const chunk of chunks) {
    for (let start = 0; start < chunk.length; start += PIECE_BYTES) {
      let text = decoder.write(chunk.subarray(start, start + PIECE_BYTES));
      if (first && text !== '') {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        first = false;
      }
      if (text !== '') yield text;
    }
  }
  const rest = decoder.end();
  if (rest !== '') yield rest;
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
  const text = decode(chunks);
  // Look ahead to the first non-blank character, for detection and to refuse an empty input.
  let head = '';
  // Not for-await with break: breaking would close the stream.
  for (let next = await text.next(); !next.done; next = await text.next()) {
    head += next.value;
    if (/\S/.test(head)) break;
  }
  const firstChar = /\S/.exec(head)?.[0];
  if (firstChar === undefined) throw new InvalidInputError('the input is empty: no rows to import');
  const all = (async function* () {
    yield head;
    yield* text;
  })();
  const chosen = format ?? formatFromContent(firstChar);
  onFormat?.(chosen);
  if (chosen === 'json') yield* jsonArrayRows(all, options);
  else if (chosen === 'ndjson') yield* ndjsonRows(all, options);
  else yield* csvRows(all, options);
}

/** NDJSON: one value per line; blank lines are skipped but still counted. */
async function* ndjsonRows(text: AsyncIterable<string>, options: ReadOptions): AsyncGenerator<InputRow> {
  const ignore = ignoredOnce(options);
  let line = 0;
  let row = 0;
  for await (const { text: lineText, tooLong } of lines(text)) {
    line += 1;
    if (!tooLong && lineText.trim() === '') continue;
    row += 1;
    yield tooLong ? { row, line, reason: TOO_LONG } : rowFromJsonText(row, line, lineText, options, ignore);
  }
}

/** Splits text into lines (LF or CRLF), without holding more than one line; a line past the cap is cut and flagged. */
async function* lines(text: AsyncIterable<string>): AsyncGenerator<{ text: string; tooLong: boolean }> {
  let pending = '';
  let tooLong = false;
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

  for await (const piece of text) {
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
  for await (const record of csvFields(text)) {
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

const CSV_OPTIONS = { relax_column_count: true, record_delimiter: '\n' } as const;
/** Records parsed by one csv-parse call: one call per record would cost ~20 µs each, a minute on a 100 MB file. */
const CSV_BATCH = 512;
/** The batch's text, as bytes (csv-parse reads bytes; a string it would first copy to a Buffer). */
const CSV_BATCH_BYTES = 64 * 1024;

type CsvRecord = { line: number; fields?: string[]; reason?: string };

/**
 * Each record's fields, parsed by csv-parse in batches; a batch with a bad record is parsed record
 * by record. The batch lives in buffers reused from one batch to the next (the records' UTF-8 bytes,
 * their lines and ends), not as an object per record: on a long file those objects would outlive
 * the young generation and be promoted, and the old generation grew ~20 MB between full GCs.
 */
async function* csvFields(text: AsyncIterable<string>): AsyncGenerator<CsvRecord> {
  const batch = { bytes: Buffer.allocUnsafe(CSV_BATCH_BYTES), length: 0, count: 0, lines: new Array<number>(CSV_BATCH).fill(0), ends: new Array<number>(CSV_BATCH).fill(0) };
  for await (const record of csvRecords(text)) {
    // Separated by "\n" (the record delimiter), as 3 bytes per UTF-16 unit at most.
    if (batch.count > 0 && batch.length + 1 + record.text.length * 3 > CSV_BATCH_BYTES) {
      yield* parseBatch(batch);
    }
    if (record.tooLong) {
      batch.ends[batch.count] = -1;
    } else if (record.text.length * 3 > CSV_BATCH_BYTES) {
      // A record too long for the batch buffer (rare: a row far beyond a valid NewPet) is parsed alone.
      yield csvRecordFields(record.line, Buffer.from(record.text));
      continue;
    } else {
      if (batch.count > 0) batch.bytes[batch.length++] = 10;
      batch.length += batch.bytes.write(record.text, batch.length);
      batch.ends[batch.count] = batch.length;
    }
    batch.lines[batch.count++] = record.line;
    if (batch.count === CSV_BATCH) yield* parseBatch(batch);
  }
  yield* parseBatch(batch);
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
function* parseBatch(batch: CsvBatch): Generator<CsvRecord> {
  let parsed: string[][] | undefined;
  let whole = 0;
  for (let i = 0; i < batch.count; i++) if (batch.ends[i] !== -1) whole += 1;
  if (whole > 0) {
    try {
      parsed = parseCsvRecord(batch.bytes.subarray(0, batch.length), CSV_OPTIONS) as string[][];
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
    else yield csvRecordFields(line, batch.bytes.subarray(start, end));
    start = end + 1;
  }
  batch.length = 0;
  batch.count = 0;
}

function csvRecordFields(line: number, bytes: Buffer): CsvRecord {
  try {
    return { line, fields: (parseCsvRecord(bytes, CSV_OPTIONS) as string[][])[0] ?? [''] };
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
  if (missing.length > 0) throw new InvalidInputError(`line ${line}: the CSV header lacks ${missing.join(' and ')}; expected name,categoryId,status`);
  if (idKey !== undefined && idIndex === undefined) {
    throw new InvalidInputError(`line ${line}: the CSV header has no column ${JSON.stringify(options.idColumn)} (--id-column); its columns: ${names.map((name) => name.trim()).join(',')}`);
  }
  return { names, columns, idIndex };
}

/** A CSV row as a NewPet candidate: categoryId as an exact int64 when it is one, an empty status as none. */
function csvValue(columns: Array<keyof NewPet | undefined>, fields: string[]): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  columns.forEach((column, index) => {
    const cell = fields[index]!;
    if (column === undefined) return;
    if (column === 'name') value.name = cell;
    else if (column === 'categoryId') {
      const trimmed = cell.trim();
      if (trimmed !== '') value.categoryId = parseInt64(trimmed) ?? trimmed;
    } else if (cell.trim() !== '') value.status = cell.trim();
  });
  return value;
}

/**
 * Splits CSV text into records at line ends outside quotes. Blank lines (empty, or only spaces:
 * never a valid row, which needs at least name and categoryId) are skipped but counted.
 */
async function* csvRecords(text: AsyncIterable<string>): AsyncGenerator<{ text: string; line: number; tooLong: boolean }> {
  let line = 1;
  let recordLine = 1;
  let inQuotes = false;
  let record = '';
  let tooLong = false;
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
  if (record.endsWith('\r')) record = record.slice(0, -1);
  if (tooLong || record.trim() !== '') yield { text: record, line: recordLine, tooLong };
}
