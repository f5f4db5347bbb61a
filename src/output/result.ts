import type { Terminal } from '../terminal';
import type { OutputFormat } from './format';
import { loadTable } from './records';

/** What writeResult needs of a command's context (structural, so output/ does not depend on context.ts). */
export interface ResultSink {
  io: { stdout: { write(chunk: string): unknown } };
  terminal: Pick<Terminal, 'stdoutIsTerminal'>;
  globals: { output: OutputFormat; query?: string };
}

/**
 * Writes a command's JSON result: through `--query` when it was given
 * (loading the JMESPath library only then), else with the command's own view.
 */
export async function writeResult(ctx: ResultSink, value: unknown, render: () => string): Promise<void> {
  if (ctx.globals.query === undefined) {
    if (ctx.terminal.stdoutIsTerminal) await loadTable();
    ctx.io.stdout.write(render());
    return;
  }
  const { writeQueried } = await import('./query');
  writeQueried(ctx.io.stdout, ctx.terminal.stdoutIsTerminal, ctx.globals.query, value, ctx.globals.output);
}
