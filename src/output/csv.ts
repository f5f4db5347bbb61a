import type { LosslessNumber } from 'lossless-json';
import { stringify } from 'csv-stringify/sync';
import { safeText } from '../sanitize';

/**
 * A field: text, or a number (a JSON number's digits, int64 and exact decimals
 * included); undefined is written as an empty field.
 */
export type CsvValue = string | number | bigint | LosslessNumber | undefined;

export interface CsvColumn<Row> {
  /** The name on the header line, e.g. `categoryId`. */
  header: string;
  value(row: Row): CsvValue;
}

/**
 * A text cell that a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, a tab or a CR
 * first: `=HYPERLINK(…)`, `-2+3`, `@SUM(1+1)`) gets a leading `'`, as OWASP advises against CSV
 * injection: Excel and LibreOffice then show it as the text it is. `-o csv` exists to be
 * opened there, so this holds piped or not; numbers are not text and stay as they are, and
 * `-o json` carries every value exact. A bulk import removes the `'` again.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function textCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * A header line, then one record per row, quoted as RFC 4180 says: a field
 * holding a comma, a double quote, CR or LF is put in double quotes, with inner
 * quotes doubled. Text cells are kept from being formulas (textCell); apart from
 * that, piped, values are written verbatim (csv is a data format, so no control
 * characters are replaced).
 *
 * Records end in LF rather than RFC 4180's CRLF, as gh, jq and most Unix
 * tooling do; every CSV reader accepts both. Always ends with a newline.
 */
export function renderCsv<Row>(columns: readonly CsvColumn<Row>[], rows: readonly Row[], options: { tty?: boolean } = {}): string {
  // On a terminal the fields are read by a person: controls become visible escapes, except tabs
  // and newlines, which CSV quotes. Headers too, when they are outside text (a query's keys).
  const shown = options.tty ? (text: string) => safeText(text, { tab: true, newline: true }) : (text: string) => text;
  const field = (value: CsvValue) => (value === undefined ? '' : typeof value === 'string' ? shown(textCell(value)) : String(value));
  const records = [columns.map((column) => field(column.header)), ...rows.map((row) => columns.map((column) => field(column.value(row))))];
  return stringify(records, {
    record_delimiter: '\n',
    // Setting record_delimiter turns this off by default; without it a field
    // holding only a CR would go out unquoted and split the record for readers
    // that treat CR as a line break.
    quote_record_delimiter: true,
    eof: true,
  });
}
