import type { Context } from '../context';
import { InterruptedError, UsageError } from '../errors';
import { PET_STATUSES, type PetStatusValue } from '../schemas/constants';
import { int64Problem, parseInt64 } from '../schemas/int64';
import { validateBaseUrl } from '../config/url-check';

/**
 * Asking for what a command is missing, as `gh pr create` does, when a person
 * is at a terminal. The prompt library (@inquirer) is loaded only when a
 * prompt is actually shown. Prompts are drawn on stderr: stdout stays data.
 */

/** Prompts only when stdin and stderr are terminals, and not with --no-input or PETCTL_NO_INPUT=1. */
export function canPrompt(ctx: Context): boolean {
  return ctx.terminal.canPrompt();
}

/** The same error commander gives for a missing mandatory option, so scripts see no difference (exit 2). */
export function missingOption(flag: string, hint: string): UsageError {
  return new UsageError(`required option '${flag}' not specified`, hint);
}

/**
 * Runs one prompt with the context's streams and Ctrl-C handling. In raw mode
 * Ctrl-C arrives as a keypress, not SIGINT: @inquirer rejects with
 * ExitPromptError, which becomes exit 130 with nothing sent.
 */
async function ask<T>(ctx: Context, show: (context: PromptContext) => Promise<T>): Promise<T> {
  try {
    return await show({
      input: ctx.io.stdin,
      output: ctx.io.stderr as unknown as NodeJS.WritableStream,
      signal: ctx.signal,
    });
  } catch (error) {
    const name = (error as { name?: string } | undefined)?.name;
    if (name === 'ExitPromptError' || name === 'AbortPromptError') throw new InterruptedError();
    throw error;
  }
}

interface PromptContext {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  signal: AbortSignal;
}

export interface PetFields {
  name?: string;
  categoryId?: number | bigint;
  status?: PetStatusValue;
}

/** The status prompt's last choice, and what it means for the lists. */
const NO_STATUS_CHOICE = 'no status (appears in no status-filtered list)';

/**
 * `pets add` without --name or --category-id: asks for the missing ones, then
 * for the status (unless given). Off a terminal, a usage error (exit 2), as
 * commander gives for a missing option.
 */
export async function completePetFields(ctx: Context, given: PetFields): Promise<PetFields & { name: string; categoryId: number | bigint }> {
  const { name: givenName, categoryId: givenCategory } = given;
  if (givenName !== undefined && givenCategory !== undefined) return { ...given, name: givenName, categoryId: givenCategory };
  if (!canPrompt(ctx)) throw missingOption(given.name === undefined ? '--name <name>' : '--category-id <int64>', 'see petctl pets add --help');
  const [{ default: input }, { default: select }] = await Promise.all([import('@inquirer/input'), import('@inquirer/select')]);
  const name =
    given.name ??
    (await ask(ctx, (context) =>
      input({ message: 'Name', validate: (text) => (text.trim() === '' ? 'The name must not be empty' : true) }, context),
    ));
  const categoryId =
    given.categoryId ??
    parseInt64(
      (await ask(ctx, (context) =>
        input(
          {
            message: 'Category id',
            validate: (text) => (parseInt64(text.trim()) === undefined ? `The category id ${int64Problem(text.trim())}, not "${text.trim()}"` : true),
          },
          context,
        ),
      )).trim(),
    )!;
  let status = given.status;
  if (status === undefined) {
    // An animal without a status is missing from every list staff filter by status: a choice made
    // on purpose, last, never the one Enter takes.
    const choices = [...PET_STATUSES.map((value) => ({ value, name: value })), { value: 'none' as const, name: NO_STATUS_CHOICE }];
    const choice = await ask(ctx, (context) => select<PetStatusValue | 'none'>({ message: 'Status', choices, default: 'available' }, context));
    status = choice === 'none' ? undefined : choice;
  }
  return { name, categoryId, ...(status === undefined ? {} : { status }) };
}

/** `profile add <name>` without --base-url: asks for it, checked as the flag would be. */
export async function promptBaseUrl(ctx: Context): Promise<string> {
  if (!canPrompt(ctx)) throw missingOption('--base-url <url>', 'petctl profile add <name> --base-url https://api.example.org/v1');
  const { default: input } = await import('@inquirer/input');
  const check = (text: string): string | true => {
    try {
      validateBaseUrl(text.trim());
      return true;
    } catch (error) {
      return (error as Error).message;
    }
  };
  const answer = await ask(ctx, (context) => input({ message: 'Base URL (e.g. https://api.example.org/v1)', validate: check }, context));
  return answer.trim();
}

export interface Confirmation {
  /** The question, without the `(y/N)`. */
  question: string;
  /** --yes: skip the question. */
  yes: boolean;
  /** What would be done, for the errors: `removing profile "staging" and its API key`. */
  action: string;
  /** What a "no" leaves as it was: `profile "staging" and its key are kept`. */
  kept: string;
  /** The command again with --yes, for the hint. */
  withYes: string;
}

/**
 * Asks before something that cannot be undone, defaulting to no, as `gh repo
 * delete` does. Without a terminal (or with --no-input) it refuses rather than
 * guess (exit 2, confirmation_required); a "no" is exit 2 too (cancelled), as
 * gh exits 2 for a cancelled command, so a script never reads it as done.
 */
export async function confirmOrStop(ctx: Context, confirmation: Confirmation): Promise<void> {
  if (confirmation.yes) return;
  if (!canPrompt(ctx)) {
    throw new UsageError(`${confirmation.action} needs confirmation, and there is no terminal to ask on; nothing done`, {
      code: 'confirmation_required',
      hint: `to go ahead without the question: ${confirmation.withYes}`,
    });
  }
  const { default: input } = await import('@inquirer/input');
  const answer = await ask(ctx, (context) => input({ message: `${confirmation.question} (y/N)` }, context));
  if (/^y(es)?$/i.test(answer.trim())) return;
  throw new UsageError(`not confirmed: ${confirmation.kept}`, { code: 'cancelled' });
}
