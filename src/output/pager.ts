import { spawn } from 'node:child_process';
import type { Context } from '../context';
import { InterruptedError } from '../errors';

/**
 * A long text (a guide) shown through the reader's pager when stdout is a terminal, as git and gh
 * do. The pager is PETCTL_PAGER, else PAGER, else `less -R`; an empty one, or `cat`, means none.
 * LESS=FRX is set when LESS is unset, as git and gh set it: less quits at once on a text that fits,
 * passes colour through and leaves the page on the screen when it ends.
 *
 * The text is written as it is when stdout is no terminal, when it fits the terminal's rows, and
 * when the pager cannot start. A reader who quits early (q) chose to: no error, exit 0. Ctrl-C
 * belongs to the pager while it runs (less stops a search with it) and petctl waits for it to end,
 * as git does; SIGTERM ends both.
 */

export type PagerContext = Pick<Context, 'io' | 'terminal' | 'env' | 'signal' | 'catchInterrupt'>;

export async function writePaged(text: string, ctx: PagerContext): Promise<void> {
  const command = pagerCommand(ctx.env);
  const rows = ctx.terminal.stdoutRows();
  const fits = rows !== undefined && text.split('\n').length - 1 < rows;
  if (command === undefined || !ctx.terminal.stdoutIsTerminal || fits || !(await runPager(command, text, ctx))) ctx.io.stdout.write(text);
}

/** The pager to run, or none. */
function pagerCommand(env: PagerContext['env']): string | undefined {
  const command = (env.PETCTL_PAGER ?? env.PAGER ?? 'less -R').trim();
  return command === '' || command === 'cat' ? undefined : command;
}

/** Whether the pager ran (false: it could not start, and nothing was shown). */
function runPager(command: string, text: string, ctx: PagerContext): Promise<boolean> {
  // Plain words run as they are; a command a shell must read (quotes, a pipe, $VAR) runs in one, as git does.
  const words = /^[\w%+,./:=@ -]+$/.test(command) ? command.split(/\s+/) : undefined;
  const env = ctx.env.LESS === undefined ? { ...ctx.env, LESS: 'FRX' } : ctx.env;
  return new Promise((resolve, reject) => {
    const [file, ...args] = words ?? [command];
    const child = spawn(file!, args, { stdio: ['pipe', 'inherit', 'inherit'], env, signal: ctx.signal, shell: words === undefined });
    let release = ctx.catchInterrupt(function keep() {
      release = ctx.catchInterrupt(keep);
    });
    let settled = false;
    const settle = (ran: boolean) => {
      if (settled) return;
      settled = true;
      release();
      if (ctx.signal.aborted) reject(new InterruptedError());
      else resolve(ran);
    };
    // Not found or not runnable; or a shell that found no such command (127).
    child.on('error', () => settle(false));
    child.on('close', (code) => settle(!(words === undefined && code === 127)));
    // The reader quit before the end (EPIPE): what was not read is not wanted.
    child.stdin.on('error', () => {});
    child.stdin.end(text);
  });
}
