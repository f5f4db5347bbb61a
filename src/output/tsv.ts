import type { Painter } from './color';

/** One column of a human-readable view, generic over the row type. */
export interface Column<Row> {
  /** Heading on a TTY, e.g. `NAME`. */
  header: string;
  /** The cell text; undefined when the row has no value (shown as `-`). */
  value(row: Row): string | undefined;
  /**
   * The style for this row's cell, e.g. `chalk.green`, or undefined for plain
   * text. It returns a style rather than finished text so the table can
   * truncate first and colour after: cutting an already coloured string could
   * drop its reset code and bleed colour into the next cell.
   */
  color?(row: Row, chalk: Painter): ((text: string) => string) | undefined;
  /**
   * May be cut with `…` to fit the terminal. When no column says so, any
   * column may be cut; the widest one always gives way first.
   */
  truncate?: boolean;
}

/** Shown where a row has no value, so every line keeps the same number of fields. */
export const MISSING_VALUE = '-';

/**
 * A TSV field is data: tabs and line breaks (LF, and CR, half of a CRLF
 * break) would break the one-record-per-line contract (`cut -f2`,
 * `while IFS=$'\t' read`), so each becomes a space. Everything else,
 * other control characters included, is passed on as the server sent it.
 */
function tsvField(text: string): string {
  return text.replace(/[\t\n\r]/g, ' ');
}

/**
 * The table's off-a-TTY form (as gh prints when piped): no header, no
 * borders, no colour, no truncation; one row per line, fields separated by
 * tabs, so `cut -f2` and `while IFS=$'\t' read` work. Returns '' for no rows.
 */
export function renderTsv<Row>(columns: readonly Pick<Column<Row>, 'value'>[], rows: readonly Row[]): string {
  if (rows.length === 0) return '';
  return rows
    .map((row) => columns.map((column) => tsvField(column.value(row) ?? MISSING_VALUE)).join('\t') + '\n')
    .join('');
}
