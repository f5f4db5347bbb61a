import type { Context } from '../../context';
import { InterruptedError, UsageError } from '../../errors';

/** Reads all of stdin (a pipe or a file): `echo "$KEY" | petctl auth login --with-token`. */
async function readStdin(ctx: Context): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** A prompt that echoes nothing, so the key never shows on screen or in terminal scrollback. */
function promptHidden(ctx: Context, prompt: string): Promise<string> {
  const { stdin, stderr } = ctx.io;
  // Echo off before the prompt shows (as getpass does): a key typed or pasted
  // the moment the prompt appears would otherwise be echoed by the terminal.
  stdin.setRawMode?.(true);
  stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error?: Error) => {
      stdin.removeListener('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
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

/** The key from a hidden prompt on a terminal, or from stdin with --with-token or when stdin is not a terminal. */
export async function readKey(ctx: Context, profile: string, withToken: boolean): Promise<string> {
  const fromStdin = withToken || !ctx.io.stdin.isTTY;
  const key = (fromStdin ? await readStdin(ctx) : await promptHidden(ctx, `API key for profile "${profile}": `)).trim();
  if (key === '') {
    throw new UsageError(fromStdin ? 'no API key on standard input' : 'no API key entered', 'echo "$KEY" | petctl auth login --with-token');
  }
  return key;
}
