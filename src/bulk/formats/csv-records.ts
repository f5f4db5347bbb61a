import { parse as parseCsvRecord } from 'csv-parse/sync';
import { TOO_LONG, textRecords } from './row';

/** CSV text as records (split first, so a bad one never derails the next), their fields by csv-parse, and its delimiter. */

type CsvOptions = { relax_column_count: true; record_delimiter: '\n'; delimiter: string };
const csvOptions = (delimiter: string): CsvOptions => ({ relax_column_count: true, record_delimiter: '\n', delimiter });
/** Records parsed by one csv-parse call: a call per record costs more than the record (docs/performance.md). */
const CSV_BATCH = 512;
/** The batch's text, as bytes (csv-parse reads bytes; a string it would first copy to a Buffer). */
const CSV_BATCH_BYTES = 64 * 1024;

type CsvRecord = { line: number; fields?: string[]; reason?: string; undecodable?: unknown };

/**
 * Each record's fields, parsed in batches (a batch with a bad record, record by record), held in
 * buffers reused from batch to batch rather than an object per record (docs/performance.md).
 */
export async function* csvFields(text: AsyncIterable<string>, delimiter: string | undefined): AsyncGenerator<CsvRecord> {
  const batch = { bytes: Buffer.allocUnsafe(CSV_BATCH_BYTES), length: 0, count: 0, lines: new Array<number>(CSV_BATCH).fill(0), ends: new Array<number>(CSV_BATCH).fill(0) };
  let options: CsvOptions | undefined;
  for await (const record of textRecords(text, true)) {
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
    if (record.tooLong || record.text.length * 3 > CSV_BATCH_BYTES) {
      // Too long for the batch buffer (rare: a row far beyond a valid NewPet): alone, after the batch before it.
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

interface CsvBatch {
  bytes: Buffer;
  length: number;
  count: number;
  lines: number[];
  /** Where each record's bytes end in `bytes`. */
  ends: number[];
}

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
    return { line, reason: csvReason(error) };
  }
}

function csvReason(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'CSV_QUOTE_NOT_CLOSED') return 'a quoted field is not closed (truncated file?)';
  if (code === 'CSV_INVALID_CLOSING_QUOTE') return 'bad quoting: a closing quote must end its field (write "" for a quote inside one)';
  return `bad CSV: ${(error as Error).message}`;
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
