import { stringifyJson } from '../schemas/json';
import type { ColorLevel } from './color';
import { type CsvValue, renderCsv } from './csv';
import { stdoutJson } from '../sanitize';
import type { OutputFormat } from './format';
import { type Column, renderTsv } from './tsv';

type TableModule = typeof import('./table');
let tableModule: TableModule | undefined;

/**
 * Loads the terminal's table renderer (cli-table3 and chalk; their cost: docs/performance.md): only a command
 * whose stdout is a terminal needs it, so writeResult and the other callers that may draw a table
 * load it first, and every other run (-o json, csv, piped TSV) never does.
 */
export async function loadTable(): Promise<void> {
  tableModule ??= await import('./table');
}

function table(): TableModule {
  if (tableModule === undefined) throw new Error('the table renderer is used before loadTable()');
  return tableModule;
}

/** A column of a record view: `header` on a TTY, `key` as the csv header name. */
export interface RecordColumn<Row> extends Column<Row> {
  /** The field name in csv, matching the row's JSON property, e.g. `categoryId`. */
  key: string;
  /** The csv field when it is a number (`pet.id`), not the text `value` gives: a number is never taken for a formula. */
  csv?(row: Row): CsvValue;
}

/** What the caller learnt about stdout; the renderers never look at process.*. */
export interface RenderOptions {
  /** stdout is a terminal: `table` draws a table, otherwise it prints TSV. */
  tty: boolean;
  level: ColorLevel;
  /** Terminal width in columns, to truncate the table to. */
  width?: number;
}

/**
 * A list in the chosen format, as a string the caller writes to stdout.
 * - table: a table on a TTY, TSV lines off it;
 * - json: the rows themselves as a pretty array (every property kept, int64 exact);
 * - ndjson: one compact JSON object per line;
 * - csv: a header of column keys, then the rows.
 * On a terminal outside text is made safe (sanitize.ts): in json and ndjson,
 * C1 and bidi controls become `\u` escapes, the same JSON value.
 * No rows gives '' (table, tsv, ndjson), `[]\n` (json) or the header line (csv);
 * saying "nothing found" on stderr is the caller's job.
 */
export function renderRecords<Row extends object>(
  columns: readonly RecordColumn<Row>[],
  rows: readonly Row[],
  format: OutputFormat,
  options: RenderOptions,
): string {
  switch (format) {
    case 'table':
      return options.tty
        ? table().renderTable(columns, rows, { level: options.level, width: options.width })
        : renderTsv(columns, rows);
    case 'json':
      return stdoutJson(stringifyJson(rows, 2), options.tty) + '\n';
    case 'ndjson':
      return rows.map((row) => stdoutJson(stringifyJson(row), options.tty) + '\n').join('');
    case 'csv':
      return renderCsv(
        columns.map((column) => ({ header: column.key, value: column.csv ?? ((row: Row) => column.value(row)) })),
        rows,
        { tty: options.tty },
      );
  }
}

/** One record: like a one-row list, except that json prints the object, not an array. */
export function renderRecord<Row extends object>(
  columns: readonly RecordColumn<Row>[],
  row: Row,
  format: OutputFormat,
  options: RenderOptions,
): string {
  if (format === 'json') return stdoutJson(stringifyJson(row, 2), options.tty) + '\n';
  return renderRecords(columns, [row], format, options);
}
