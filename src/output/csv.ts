import { stringify } from 'csv-stringify/sync';
import { safeText } from './sanitize';

export interface CsvColumn<Row> {
  /** The name on the header line, e.g. `categoryId`. */
  header: string;
  /** The field; undefined is written as an empty field. */
  value(row: Row): string | undefined;
}

/**
 * A header line, then one record per row, quoted as RFC 4180 says: a field
 * holding a comma, a double quote, CR or LF is put in double quotes, with inner
 * quotes doubled. Piped, values are written verbatim (csv is a data format,
 * so no control characters are replaced).
 *
 * Records end in LF rather than RFC 4180's CRLF, as gh, jq and most Unix
 * tooling do; every CSV reader accepts both. Always ends with a newline.
 */
export function renderCsv<Row>(columns: readonly CsvColumn<Row>[], rows: readonly Row[], options: { tty?: boolean } = {}): string {
  // On a terminal the fields are read by a person: controls become visible escapes, except tabs
  // and newlines, which CSV quotes. Headers too, when they are outside text (a query's keys).
  const shown = options.tty ? (text: string) => safeText(text, { tab: true, newline: true }) : (text: string) => text;
  const records = [
    columns.map((column) => shown(column.header)),
    ...rows.map((row) => columns.map((column) => shown(column.value(row) ?? ''))),
  ];
  return stringify(records, {
    record_delimiter: '\n',
    // Setting record_delimiter turns this off by default; without it a field
    // holding only a CR would go out unquoted and split the record for readers
    // that treat CR as a line break.
    quote_record_delimiter: true,
    eof: true,
  });
}
