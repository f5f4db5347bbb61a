import { spawn } from 'node:child_process';
import { InterruptedError } from '../errors';
import type { OutputHost } from './stderr';

/** A long guide through the reader's pager on a terminal, as git and gh page (docs/configuration.md). Ctrl-C is the
 * pager's while it runs (less stops a search with it) and petctl waits for it, as git does; SIGTERM ends both. */

interface PagerContext extends Pick<OutputHost, 'io' | 'terminal'> {
  env: Readonly<NodeJS.ProcessEnv>;
  signal: AbortSignal;
  catchInterrupt(handler: () => void): () => void;
}

export async function writePaged(text: string, ctx: PagerContext): Promise<void> {
  const command = (ctx.env.PETCTL_PAGER ?? ctx.env.PAGER ?? 'less -R').trim();
  const rows = ctx.terminal.stdoutRows();
  const fits = rows !== undefined && text.split('\n').length - 1 < rows;
  // An empty pager, or cat, means none.
  const none = command === '' || command === 'cat';
  if (none || !ctx.terminal.stdoutIsTerminal || fits || !(await runPager(command, text, ctx))) ctx.io.stdout.write(text);
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
