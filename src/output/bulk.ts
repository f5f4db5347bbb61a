import type { DryRunReport } from '../bulk/import';
import type { ChangedRow, Scan } from '../bulk/plan';
import type { RowFailure, RowResult } from '../bulk/results';
import { renderCsv } from './csv';
import type { OutputFormat } from './format';
import { jsonText } from './json';
import { renderRecords, type RecordColumn, type RenderOptions } from './records';
import { plural } from './waits';
import { formatLocalDate, formatLocalMinute } from './time';

/** An import's rows on stdout: ndjson a line per row as it completes, json every row at the end, table and csv the failures. */

export function renderRowArray(results: readonly RowResult[], tty: boolean): string {
  return jsonText([...results].sort((a, b) => a.row - b.row), tty);
}

const FAILURE_COLUMNS: readonly RecordColumn<RowFailure>[] = [
  { key: 'row', header: 'ROW', value: (result) => String(result.row), csv: (result) => result.row },
  { key: 'line', header: 'LINE', value: (result) => String(result.line), csv: (result) => result.line },
  { key: 'code', header: 'CODE', value: (result) => result.error.code },
  { key: 'status', header: 'STATUS', value: (result) => String(result.error.status), csv: (result) => result.error.status },
  { key: 'message', header: 'MESSAGE', value: (result) => result.error.message, truncate: true },
];

/** `table` / `csv`: the failed and unknown rows, in row order; '' when there are none. */
export function renderFailures(failures: readonly RowFailure[], format: Extract<OutputFormat, 'table' | 'csv'>, options: RenderOptions): string {
  if (failures.length === 0) return '';
  return renderRecords(FAILURE_COLUMNS, [...failures].sort((a, b) => a.row - b.row), format, options);
}

/** `--dry-run`'s report: one object with -o json/ndjson, a header and a line with csv, else one sentence. */
export function renderDryRun(report: DryRunReport, format: OutputFormat): string {
  if (format === 'json' || format === 'ndjson') return `${JSON.stringify({ dryRun: true, ...report }, null, format === 'json' ? 2 : undefined)}\n`;
  if (format === 'csv') {
    const keys = Object.keys(report) as Array<keyof DryRunReport>;
    return renderCsv(keys.map((key) => ({ header: key, value: (row: DryRunReport) => row[key] })), [report]);
  }
  return `would send ${report.wouldSend} of ${report.rows} rows: ${report.done} already created, ${report.unknown} with an unknown outcome, ${report.invalid} invalid; journal ${report.journal}\n`;
}

/** `label` names a source. */
export function skippedLine(scan: Pick<Scan, 'skipped' | 'skippedCount'>, label: (source: string) => string, resumingNew: boolean): string {
  const sources = [...scan.skipped.keys()].map(label);
  const lastAt = Math.max(...[...scan.skipped.values()].map((bySource) => Date.parse(bySource.lastAt)));
  const why = resumingNew ? 'this --new import resumes the one that did not finish' : '--new sends them again';
  return `skipped ${plural(scan.skippedCount, 'row')} already created from ${sources.join(', ')} (last import ${formatLocalMinute(lastAt)}); ${why}`;
}

export function changedRowLine(changed: ChangedRow): string {
  const { row, line, id, record } = changed;
  return `line ${line} (row ${row}): ${id} was created as ${String(record.pet.id)} on ${formatLocalDate(Date.parse(record.at))}; it has changed since, and the service cannot update animals`;
}
