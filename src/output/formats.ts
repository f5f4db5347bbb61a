import type { ChalkInstance } from 'chalk';
import type { LosslessNumber } from 'lossless-json';
import { stringify } from 'csv-stringify/sync';
import type { OutputFormat } from '../globals';
import { stringifyJson } from '../schemas/json';
import { safeLines, safeText, stdoutJson } from '../sanitize';

/** `value` undefined: shown as MISSING_VALUE, so every line keeps its fields. `color`: a style, not styled text
 * (the table truncates first, so no reset is cut off). `truncate`: may be cut with `…` (if none says so, any may). */
export interface Column<Row> {
  header: string;
  value(row: Row): string | undefined;
  color?(row: Row, chalk: ChalkInstance): ((text: string) => string) | undefined;
  truncate?: boolean;
}

export const MISSING_VALUE = '-';

/** The table off a terminal, as gh prints it piped: one row per line, fields separated by tabs, no header, colour or
 * truncation. Tabs and line breaks in a field become spaces, so `cut -f2` keeps working; '' for no rows. */
export function renderTsv<Row>(columns: readonly Pick<Column<Row>, 'value'>[], rows: readonly Row[]): string {
  return rows.map((row) => columns.map((column) => (column.value(row) ?? MISSING_VALUE).replace(/[\t\n\r]/g, ' ')).join('\t') + '\n').join('');
}

/** Pretty JSON, int64-exact; on a terminal C1 and bidi controls as `\u` escapes, the same value (sanitize.ts). */
export function jsonText(value: unknown, tty: boolean): string {
  return `${stdoutJson(stringifyJson(value ?? null, 2), tty)}\n`;
}

/** `-o ndjson`: an array's items one compact JSON a line, anything else one line. */
export function jsonLines(value: unknown, tty: boolean): string {
  return (Array.isArray(value) ? value : [value]).map((item) => `${stdoutJson(stringifyJson(item ?? null), tty)}\n`).join('');
}

/** A csv field: text, or a number (a JSON number's digits, int64 and exact decimals included); undefined is empty. */
export type CsvValue = string | number | bigint | LosslessNumber | undefined;

export interface CsvColumn<Row> {
  header: string;
  value(row: Row): CsvValue;
}

/** A text cell a spreadsheet would read as a formula gets a leading `'`, as OWASP advises (docs/output.md#cells-stay-text). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A header line, then a record per row, quoted as RFC 4180 says with LF ends as gh and jq; piped, values verbatim but for formulas. */
export function renderCsv<Row>(columns: readonly CsvColumn<Row>[], rows: readonly Row[], options: { tty?: boolean } = {}): string {
  // On a terminal, controls but tabs and newlines (CSV quotes those) become escapes; headers too (a query's keys).
  const shown = options.tty ? safeLines : (text: string) => text;
  const text = (value: string) => shown(FORMULA_START.test(value) ? `'${value}` : value);
  const field = (value: CsvValue) => (value === undefined ? '' : typeof value === 'string' ? text(value) : String(value));
  const records = [columns.map((column) => field(column.header)), ...rows.map((row) => columns.map((column) => field(column.value(row))))];
  // Setting record_delimiter turns quote_record_delimiter off; without it a field of a lone CR would split the record.
  return stringify(records, { record_delimiter: '\n', quote_record_delimiter: true, eof: true });
}

type DetailField = { key: string; label: string; text: string };

/** One object as "Label: value" lines for a person (made safe, piped too), the object in json and ndjson, keys and a row in csv. */
export function renderDetails(fields: readonly DetailField[], object: Record<string, unknown>, format: OutputFormat, tty: boolean): string {
  if (format === 'json') return jsonText(object, tty);
  if (format === 'ndjson') return jsonLines(object, tty);
  if (format === 'csv') return renderCsv(fields.map((field) => ({ header: field.key, value: () => field.text })), [object], { tty });
  const width = Math.max(...fields.map((field) => field.label.length)) + 2;
  return fields.map((field) => `${`${field.label}:`.padEnd(width)}${safeText(field.text)}\n`).join('');
}

/** A word as a POSIX shell reads it back: as it is, or in single quotes (an inner ' as '\''). */
export function shellWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
