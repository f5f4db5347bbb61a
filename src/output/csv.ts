import { stringify } from 'csv-stringify/sync';

export interface CsvColumn<Row> {
  /** The name on the header line, e.g. `categoryId`. */
  header: string;
  /** The field; undefined is written as an empty field. */
  value(row: Row): string | undefined;
}

/**
 * A header line, then one record per row, quoted as RFC 4180 says: a field
 * holding a comma, a double quote, CR or LF is put in double quotes, with inner
 * quotes doubled. Values are written verbatim (csv is a data format, so no
 * control characters are replaced).
 *
 * Records end in LF rather than RFC 4180's CRLF, as gh, jq and most Unix
 * tooling do; every CSV reader accepts both. Always ends with a newline.
 */
export function renderCsv<Row>(columns: readonly CsvColumn<Row>[], rows: readonly Row[]): string {
  const records = [
    columns.map((column) => column.header),
    ...rows.map((row) => columns.map((column) => column.value(row) ?? '')),
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
