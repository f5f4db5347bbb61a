import type { Context } from '../context';
import { InterruptedError, UsageError } from '../errors';
import { PET_STATUSES, type PetStatus, int64Problem, parseInt64 } from '../schemas/constants';
import { validateBaseUrl } from '../config/url-check';
import { readWhole } from '../stdin';

/** The same error commander gives for a missing mandatory option, so scripts see no difference (exit 2). */
function missingOption(flag: string, hint: string): UsageError {
  return new UsageError(`required option '${flag}' not specified`, hint);
}

type PromptContext = { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; signal: AbortSignal };

/** On stderr, as `gh pr create` asks: stdout stays data. Ctrl-C in raw mode is a keypress: exit 130, nothing sent. */
async function ask<T>(ctx: Context, show: (context: PromptContext) => Promise<T>): Promise<T> {
  try {
    return await show({ input: ctx.io.stdin, output: ctx.io.stderr as unknown as NodeJS.WritableStream, signal: ctx.signal });
  } catch (error) {
    const name = (error as { name?: string } | undefined)?.name;
    if (name === 'ExitPromptError' || name === 'AbortPromptError') throw new InterruptedError();
    throw error;
  }
}

/** A line of text as typed; `validate` sees it trimmed and returns what is wrong, if anything. */
async function askText(ctx: Context, message: string, validate?: (text: string) => string | undefined): Promise<string> {
  const { default: input } = await import('@inquirer/input');
  const check = validate && ((text: string) => validate(text.trim()) ?? true);
  return ask(ctx, (context) => input({ message, validate: check }, context));
}

/** `pets add`'s fields, given as flags or not. */
export type PetFields = { name?: string; categoryId?: number | bigint; status?: PetStatus };

/** `pets add` without --name or --category-id asks for them, and the status; off a terminal, commander's error. */
export async function completePetFields(ctx: Context, given: PetFields): Promise<PetFields & { name: string; categoryId: number | bigint }> {
  const { name: givenName, categoryId: givenCategory } = given;
  if (givenName !== undefined && givenCategory !== undefined) return { ...given, name: givenName, categoryId: givenCategory };
  if (!ctx.terminal.canPrompt()) throw missingOption(given.name === undefined ? '--name <name>' : '--category-id <int64>', 'see petctl pets add --help');
  const name = givenName ?? (await askText(ctx, 'Name', (text) => (text === '' ? 'The name must not be empty' : undefined)));
  const categoryProblem = (text: string) => (parseInt64(text) === undefined ? `The category id ${int64Problem(text)}, not "${text}"` : undefined);
  const categoryId = givenCategory ?? parseInt64((await askText(ctx, 'Category id', categoryProblem)).trim())!;
  let status = given.status;
  if (status === undefined) {
    // No status hides an animal from every status filter: chosen on purpose, last, never what Enter takes.
    const { default: select } = await import('@inquirer/select');
    const choices = [...PET_STATUSES.map((value) => ({ value, name: value })), { value: 'none' as const, name: 'no status (appears in no status-filtered list)' }];
    const choice = await ask(ctx, (context) => select<PetStatus | 'none'>({ message: 'Status', choices, default: 'available' }, context));
    status = choice === 'none' ? undefined : choice;
  }
  return { name, categoryId, ...(status === undefined ? {} : { status }) };
}

/** `profile add <name>` without --base-url: asks for it, checked as the flag would be. */
export async function promptBaseUrl(ctx: Context): Promise<string> {
  if (!ctx.terminal.canPrompt()) throw missingOption('--base-url <url>', 'petctl profile add <name> --base-url https://api.example.org/v1');
  const answer = await askText(ctx, 'Base URL (e.g. https://api.example.org/v1)', (text) => {
    try {
      validateBaseUrl(text);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  });
  return answer.trim();
}

/** Asks before what cannot be undone, defaulting to no, as `gh repo delete` does. Without a terminal it refuses rather
 * than guess; a "no" is exit 2 too (cancelled), so a script never reads it as done. `action`: what would be done;
 * `kept`: what a "no" leaves as it was; `withYes`: the command again with --yes. */
export async function confirmOrStop(ctx: Context, confirmation: { question: string; yes: boolean; action: string; kept: string; withYes: string }): Promise<void> {
  if (confirmation.yes) return;
  if (!ctx.terminal.canPrompt()) {
    throw new UsageError(`${confirmation.action} needs confirmation, and there is no terminal to ask on; nothing done`, {
      code: 'confirmation_required',
      hint: `to go ahead without the question: ${confirmation.withYes}`,
    });
  }
  if (/^y(es)?$/i.test((await askText(ctx, `${confirmation.question} (y/N)`)).trim())) return;
  throw new UsageError(`not confirmed: ${confirmation.kept}`, { code: 'cancelled' });
}

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

/** No key or password is near this long; more is a file or a stream given by mistake. */
const SECRET_MAX_BYTES = 64 * 1024;

/** A secret from stdin when asked or not a terminal, else a hidden prompt; `hint`: how to pipe it. Trimmed. A terminal
 * is read with its echo off even when stdin is asked for (`--with-token`, the key pasted at it): never on screen. */
export async function readSecret(ctx: Context, request: { what: string; prompt: string; hint: string; fromStdin: boolean }): Promise<string> {
  const { what, hint } = request;
  const fromStdin = request.fromStdin || !ctx.terminal.stdinIsTerminal;
  if (!fromStdin && !ctx.terminal.canPrompt()) throw new UsageError(`no ${what}: prompting is off (--no-input, PETCTL_NO_INPUT, or stderr is not a terminal)`, hint);
  const limit = { bytes: SECRET_MAX_BYTES, error: () => new UsageError(`standard input holds more than ${SECRET_MAX_BYTES / 1024} KiB, more than any ${what}`, hint) };
  const prompt = fromStdin ? '' : request.prompt;
  const typed = ctx.terminal.stdinIsTerminal ? await promptHidden(ctx, prompt) : (await readWhole(ctx.io.stdin, ctx.signal, limit)).toString('utf8');
  const secret = typed.trim();
  if (secret === '') throw new UsageError(fromStdin ? `no ${what} on standard input` : `no ${what} entered`, hint);
  return secret;
}
