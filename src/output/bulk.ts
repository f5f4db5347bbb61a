import type { RowFailure, RowResult } from '../bulk/results';
import { stringifyJson } from '../schemas/json';
import type { OutputFormat } from './format';
import { renderRecords, type RecordColumn, type RenderOptions } from './records';

/**
 * Bulk import output: ndjson is one line per row as it completes; json is
 * every row at the end; table and csv list the failed and unknown rows at
 * the end (nothing when all went in). int64 ids stay exact (stringifyJson).
 */

/** One `-o ndjson` line. */
export function renderRowLine(result: RowResult): string {
  return `${stringifyJson(result)}\n`;
}

/** `-o json`: every row's object, in row order. */
export function renderRowArray(results: readonly RowResult[]): string {
  return `${stringifyJson([...results].sort((a, b) => a.row - b.row), 2)}\n`;
}

const FAILURE_COLUMNS: readonly RecordColumn<RowFailure>[] = [
  { key: 'row', header: 'ROW', value: (result) => String(result.row) },
  { key: 'line', header: 'LINE', value: (result) => String(result.line) },
  { key: 'code', header: 'CODE', value: (result) => result.error.code },
  { key: 'status', header: 'STATUS', value: (result) => String(result.error.status) },
  { key: 'message', header: 'MESSAGE', value: (result) => result.error.message, truncate: true },
];

/** `table` / `csv`: the failed and unknown rows, in row order; '' when there are none. */
export function renderFailures(failures: readonly RowFailure[], format: Extract<OutputFormat, 'table' | 'csv'>, options: RenderOptions): string {
  if (failures.length === 0) return '';
  return renderRecords(FAILURE_COLUMNS, [...failures].sort((a, b) => a.row - b.row), format, options);
}
