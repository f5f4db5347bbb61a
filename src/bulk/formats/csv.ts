import { parse as parseCsvRecord } from 'csv-parse/sync';
import { parseInt64, petStatusOf } from '../../schemas/constants';
import type { NewPet } from '../../schemas/pet';
import { type SentField, columnKey, headerField, spellings } from './columns';
import { type InputRow, InvalidInputError, type ReadOptions, TOO_LONG, refuseUndecodable, textRecords } from './row';
import { validateNewPet, withRowId } from './row';

/** CSV (RFC 4180) with a header row. Records are split first, so that a bad one never derails the next. */
export async function* csvRows(text: AsyncIterable<string>, options: ReadOptions): AsyncGenerator<InputRow> {
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
      const { idIndex } = header;
      yield { row, line, ...(idIndex === undefined ? pet : withRowId(pet, cellText(fields![idIndex]!), header.names[idIndex]!.trim())) };
    }
  }
  if (header === undefined) throw new InvalidInputError('the input is empty: no CSV header');
}

interface CsvHeader {
  names: string[];
  /** The NewPet field each column fills; undefined for the id column and ignored columns. */
  columns: Array<keyof NewPet | undefined>;
  idIndex?: number;
}

function csvHeader(names: string[], line: number, options: ReadOptions): CsvHeader {
  const listed = names.map((name) => name.trim()).join(',');
  const mappings = options.columns ?? [];
  for (const { field, header } of mappings) {
    const found = names.filter((name) => columnKey(name) === columnKey(header)).length;
    if (found === 0) throw new InvalidInputError(`line ${line}: the CSV header has no column ${JSON.stringify(header)} (--column ${field}=${header}); its columns: ${listed}`);
    if (found > 1) throw new InvalidInputError(`line ${line}: the column ${JSON.stringify(header)} (--column ${field}=${header}) appears twice in the CSV header`);
  }
  const columns = names.map((name) => headerField(name, mappings));
  const idKey = options.idColumn === undefined ? undefined : columnKey(options.idColumn);
  let idIndex: number | undefined;
  names.forEach((name, index) => {
    const column = columns[index];
    if (column !== undefined && columns.indexOf(column) < index) {
      const both = names.filter((_, i) => columns[i] === column).map((other) => JSON.stringify(other.trim()));
      throw new InvalidInputError(`line ${line}: column ${column} appears twice in the CSV header (${both.join(', ')}); choose one with --column ${column}="<header>"`);
    }
    if (column === undefined && idKey !== undefined && columnKey(name) === idKey) {
      if (idIndex !== undefined) throw new InvalidInputError(`line ${line}: the --id-column ${JSON.stringify(options.idColumn)} appears twice in the CSV header`);
      idIndex = index;
    } else if (column === undefined) options.onIgnored?.(name.trim());
  });
  const missing = (['name', 'categoryId'] as const).filter((column) => !columns.includes(column));
  if (missing.length > 0) throw new InvalidInputError(`line ${line}: ${lacking(missing, names)}; its columns: ${listed}`);
  if (idKey !== undefined && idIndex === undefined) {
    throw new InvalidInputError(`line ${line}: the CSV header has no column ${JSON.stringify(options.idColumn)} (--id-column); its columns: ${listed}`);
  }
  return { names, columns, idIndex };
}

/** What a header lacks, and the names it would have taken for each. */
function lacking(missing: readonly SentField[], names: readonly string[]): string {
  // NULs between the letters: UTF-16 without a BOM, read as UTF-8. One column only: another separator.
  const utf16 = names.some((name) => name.includes('\u0000'));
  const encoding = '; it holds NUL characters, as UTF-16 without a BOM does: give --encoding utf-16le (or utf-16be)';
  const delimiter = '; if its columns are separated by another character, give it with --delimiter';
  const other = utf16 ? encoding : names.length === 1 ? delimiter : '';
  const accepted = missing.map((field) => `for ${field}: ${spellings(field).join(', ')}`).join('; ');
  const flags = missing.map((field) => `--column ${field}="<header>"`).join(' ');
  return `the CSV header lacks ${missing.join(' and ')}; expected name,categoryId,status${other}; accepted ${accepted} (case, spaces, _ and - do not matter), or any other header with ${flags}`;
}

/** A cell as text: the `'` that `-o csv` writes before a would-be formula is dropped again (`'Tis` stays). */
const FORMULA_GUARD = /^'[=+\-@\t\r]/;
const cellText = (cell: string) => (FORMULA_GUARD.test(cell) ? cell.slice(1) : cell);

/** A CSV row as a NewPet candidate: categoryId as an exact int64 when it is one, a status in any case, an empty one as none. */
function csvValue(columns: Array<keyof NewPet | undefined>, fields: string[]): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  columns.forEach((column, index) => {
    if (column === undefined) return;
    const cell = cellText(fields[index]!);
    if (column === 'name') value.name = cell;
    else if (column === 'categoryId') {
      const trimmed = cell.trim();
      // A whole number beyond int64 stays a number, so its message names the range.
      if (trimmed !== '') value.categoryId = parseInt64(trimmed) ?? (/^-?[1-9]\d*$/.test(trimmed) ? BigInt(trimmed) : trimmed);
    } else if (cell.trim() !== '') value.status = petStatusOf(cell) ?? cell.trim();
  });
  return value;
}

type CsvOptions = { relax_column_count: true; record_delimiter: '\n'; delimiter: string };
const csvOptions = (delimiter: string): CsvOptions => ({ relax_column_count: true, record_delimiter: '\n', delimiter });
/** Records a csv-parse call takes: a call per record costs more than the record (docs/performance.md). */
const CSV_BATCH = 512;
/** The batch's text, as bytes (csv-parse reads bytes; a string it would first copy to a Buffer). */
const CSV_BATCH_BYTES = 64 * 1024;

const NOT_CLOSED = 'a quoted field is not closed';
const EXCEL_SEP = /^sep=([^"])$/i;

type CsvRecord = { line: number; fields?: string[]; reason?: string; undecodable?: unknown };

/** Each record's fields, parsed in batches (one with a bad record, record by record) held in reused buffers. */
async function* csvFields(text: AsyncIterable<string>, delimiter: string | undefined): AsyncGenerator<CsvRecord> {
  const batch = { bytes: Buffer.allocUnsafe(CSV_BATCH_BYTES), length: 0, count: 0, lines: new Array<number>(CSV_BATCH).fill(0), ends: new Array<number>(CSV_BATCH).fill(0) };
  let options: CsvOptions | undefined;
  let first = true;
  for await (const record of textRecords(text, true)) {
    if (record.undecodable) {
      yield* parseBatch(batch, options ?? csvOptions(','));
      yield { line: record.line, undecodable: record.undecodable };
      return;
    }
    // A first line `sep=;` (Excel's) names the delimiter, unless --delimiter does; the header follows it.
    const sep = first ? EXCEL_SEP.exec(record.text) : null;
    first = false;
    if (sep) {
      delimiter ??= sep[1];
      continue;
    }
    // The first record is the header, which decides the delimiter when --delimiter does not.
    options ??= csvOptions(delimiter ?? sniffDelimiter(record.text));
    if (record.open) {
      // A stray quote: every line after it, to the end of the input, is read as one field.
      yield* parseBatch(batch, options);
      const rest = `the ${record.open} lines after it, to the end of the input, are read as part of it`;
      yield { line: record.line, reason: `${NOT_CLOSED}: ${rest} (a stray quote, or a truncated file?)` };
      continue;
    }
    // Separated by "\n" (the record delimiter), as 3 bytes per UTF-16 unit at most.
    if (batch.count > 0 && batch.length + 1 + record.text.length * 3 > CSV_BATCH_BYTES) {
      yield* parseBatch(batch, options);
    }
    if (record.tooLong || record.text.length * 3 > CSV_BATCH_BYTES) {
      // Too long for the batch buffer (a row far beyond a valid NewPet): alone, after the batch before it.
      yield* parseBatch(batch, options);
      if (record.tooLong) yield { line: record.line, reason: TOO_LONG };
      else yield csvRecordFields(record.line, Buffer.from(record.text), options);
      continue;
    }
    if (batch.length > 0) batch.bytes[batch.length++] = 10;
    batch.length += batch.bytes.write(record.text, batch.length);
    batch.ends[batch.count] = batch.length;
    batch.lines[batch.count++] = record.line;
    if (batch.count === CSV_BATCH) yield* parseBatch(batch, options);
  }
  if (options) yield* parseBatch(batch, options);
}

/** `ends`: where each record's bytes end in `bytes`. */
type CsvBatch = { bytes: Buffer; length: number; count: number; lines: number[]; ends: number[] };

function* parseBatch(batch: CsvBatch, options: CsvOptions): Generator<CsvRecord> {
  let parsed: string[][] | undefined;
  try {
    if (batch.count > 0) parsed = parseCsvRecord(batch.bytes.subarray(0, batch.length), options) as string[][];
  } catch {
    // A bad record: each is parsed alone below.
  }
  let start = 0;
  for (let i = 0; i < batch.count; i++) {
    const line = batch.lines[i]!;
    const end = batch.ends[i]!;
    if (parsed?.length === batch.count) yield { line, fields: parsed[i]! };
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
    const code = (error as { code?: string }).code;
    if (code === 'CSV_QUOTE_NOT_CLOSED') return { line, reason: `${NOT_CLOSED} (truncated file?)` };
    if (code !== 'CSV_INVALID_CLOSING_QUOTE') return { line, reason: `bad CSV: ${(error as Error).message}` };
    return { line, reason: 'bad quoting: a closing quote must end its field (write "" for a quote inside one)' };
  }
}

/** `;` if the header has one and no `,` outside quotes, a tab if neither, else `,` (Excel's region's list separator). */
export function sniffDelimiter(header: string): string {
  let inQuotes = false;
  let semicolon = false;
  let tab = false;
  for (let i = 0; i < header.length; i++) {
    const ch = header[i];
    if (ch === '"') inQuotes = !inQuotes;
    else if (inQuotes) continue;
    else if (ch === ',') return ',';
    else if (ch === ';') semicolon = true;
    else if (ch === '\t') tab = true;
  }
  return semicolon ? ';' : tab ? '\t' : ',';
}
