import type { ColorLevel, Terminal } from '../terminal';
import type { OutputFormat } from '../globals';
import { type Column, type CsvValue, jsonLines, jsonText, renderCsv, renderTsv } from './formats';
import type { OutputHost } from './stderr';

let tableModule: typeof import('./table') | undefined;

/** Loads the terminal's table (cli-table3, chalk): only a command whose stdout is a terminal pays for it (docs/performance.md). */
export async function loadTable(): Promise<void> {
  tableModule ??= await import('./table');
}

/** `key`: the csv field and JSON property (`categoryId`); `csv`: a number's csv field (`pet.id`), never taken for a
 * formula. */
export interface RecordColumn<Row> extends Column<Row> {
  key: string;
  csv?(row: Row): CsvValue;
}

/** What stdout is; the renderers never look at process.*. */
export type RenderOptions = { tty: boolean; level: ColorLevel; width?: number };

export function renderOptions({ terminal }: { terminal: Pick<Terminal, 'stdoutIsTerminal' | 'colorLevel' | 'stdoutWidth'> }): RenderOptions {
  return { tty: terminal.stdoutIsTerminal, level: terminal.colorLevel(), width: terminal.stdoutWidth() };
}

/** A list in the chosen format (docs/output.md). No rows gives '' (table, tsv, ndjson), `[]\n` (json) or the header
 * line (csv): "nothing found" is the caller's to say. */
export function renderRecords<Row extends object>(
  columns: readonly RecordColumn<Row>[],
  rows: readonly Row[],
  format: OutputFormat,
  options: RenderOptions,
): string {
  switch (format) {
    case 'table':
      if (!options.tty) return renderTsv(columns, rows);
      if (tableModule === undefined) throw new Error('the table renderer is used before loadTable()');
      return tableModule.renderTable(columns, rows, options);
    case 'json':
      return jsonText(rows, options.tty);
    case 'ndjson':
      return jsonLines(rows, options.tty);
    case 'csv':
      return renderCsv(
        columns.map((column) => ({ header: column.key, value: column.csv ?? ((row: Row) => column.value(row)) })),
        rows,
        { tty: options.tty },
      );
  }
}

/** Like a one-row list, except that json prints the object. */
export function renderRecord<Row extends object>(columns: readonly RecordColumn<Row>[], row: Row, format: OutputFormat, options: RenderOptions): string {
  if (format === 'json') return jsonText(row, options.tty);
  return renderRecords(columns, [row], format, options);
}

/** A command's JSON result through `--query` when it was given (loading jmespath only then), else its own view. */
export async function writeResult(ctx: OutputHost, value: unknown, render: (tty: boolean) => string): Promise<void> {
  if (ctx.globals.query === undefined) {
    if (ctx.terminal.stdoutIsTerminal) await loadTable();
    ctx.io.stdout.write(render(ctx.terminal.stdoutIsTerminal));
    return;
  }
  const { compileQuery, renderQueryResult } = await import('./query');
  const query = compileQuery(ctx.globals.query);
  ctx.io.stdout.write(renderQueryResult(query.apply(value), ctx.globals.output, ctx.terminal.stdoutIsTerminal, query));
}
