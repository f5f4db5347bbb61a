import type { ChalkInstance } from 'chalk';

export interface Column<Row> {
  header: string;
  /** Undefined when the row has no value (shown as `-`). */
  value(row: Row): string | undefined;
  /** The cell's style, not styled text: the table truncates first and colours after, so no reset code is cut off. */
  color?(row: Row, chalk: ChalkInstance): ((text: string) => string) | undefined;
  /** May be cut with `…` to fit the terminal; when no column says so, any may be (the widest first). */
  truncate?: boolean;
}

/** Shown where a row has no value, so every line keeps the same number of fields. */
export const MISSING_VALUE = '-';

/** The table off a terminal, as gh prints it piped: one row per line, fields separated by tabs, no header, colour or
 * truncation. Tabs and line breaks in a field become spaces, so `cut -f2` keeps working; '' for no rows. */
export function renderTsv<Row>(columns: readonly Pick<Column<Row>, 'value'>[], rows: readonly Row[]): string {
  return rows.map((row) => columns.map((column) => (column.value(row) ?? MISSING_VALUE).replace(/[\t\n\r]/g, ' ')).join('\t') + '\n').join('');
}
