import type { Context } from '../context';
import { InterruptedError, UsageError } from '../errors';
import { readStdin } from '../stdin';

/** A prompt that echoes nothing, so the key never shows on screen or in terminal scrollback. */
function promptHidden(ctx: Context, prompt: string): Promise<string> {
  const { stdin, stderr } = ctx.io;
  // Echo off before the prompt shows (as getpass does), or a key typed at once would be echoed.
  stdin.setRawMode?.(true);
  stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error?: Error) => {
      stdin.removeListener('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      stderr.write('\n');
      return error ? reject(error) : resolve(typed);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new InterruptedError());
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.resume();
    stdin.on('data', onData);
  });
}

/** A secret from stdin when asked or not a terminal, else a hidden prompt; `hint`: how to pipe it. Trimmed. */
export async function readSecret(ctx: Context, request: { what: string; prompt: string; hint: string; fromStdin: boolean }): Promise<string> {
  const { what, hint } = request;
  const fromStdin = request.fromStdin || !ctx.terminal.stdinIsTerminal;
  if (!fromStdin && !ctx.terminal.canPrompt()) throw new UsageError(`no ${what}: prompting is off (--no-input, PETCTL_NO_INPUT, or stderr is not a terminal)`, hint);
  const secret = (fromStdin ? (await readStdin(ctx.io.stdin)).toString('utf8') : await promptHidden(ctx, request.prompt)).trim();
  if (secret === '') throw new UsageError(fromStdin ? `no ${what} on standard input` : `no ${what} entered`, hint);
  return secret;
}
