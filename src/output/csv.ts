import type { LosslessNumber } from 'lossless-json';
import { stringify } from 'csv-stringify/sync';
import { safeText } from '../sanitize';

/** A field: text, or a number (a JSON number's digits, int64 and exact decimals included); undefined is empty. */
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
  const shown = options.tty ? (text: string) => safeText(text, { tab: true, newline: true }) : (text: string) => text;
  const text = (value: string) => shown(FORMULA_START.test(value) ? `'${value}` : value);
  const field = (value: CsvValue) => (value === undefined ? '' : typeof value === 'string' ? text(value) : String(value));
  const records = [columns.map((column) => field(column.header)), ...rows.map((row) => columns.map((column) => field(column.value(row))))];
  // Setting record_delimiter turns quote_record_delimiter off; without it a field of a lone CR would split the record.
  return stringify(records, { record_delimiter: '\n', quote_record_delimiter: true, eof: true });
}
