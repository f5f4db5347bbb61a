import { type Command, CommanderError } from 'commander';
import { leftoverWordsError, unquotedValueError } from './commands/leftover-words';
import { buildProgram, globalOptions } from './commands/root';
import { type Context, type ContextDeps, type IO, createContext } from './context';

export { loadedHttpCore } from './context';
import { ExitCode, FailureError, InterruptedError, PetctlError, UsageError, rateLimitCause } from './errors';
import { safeLine, safeText } from './sanitize';

/**
 * Builds the program, runs it, and turns every error into an exit code and
 * one clear message. The only place that decides how petctl ends.
 */

/** What bin/petctl.js hands in: the process's streams, env and an AbortSignal for Ctrl-C / SIGTERM. */
export type MainDeps = ContextDeps;

export async function main(argv: string[], deps: MainDeps): Promise<number> {
  const { io } = deps;
  let ctx: Context | undefined;
  const program = buildProgram(
    async (run, command) => {
      ctx = createContext(globalOptions(program), deps);
      if (ctx.globals.query !== undefined) await checkQuery(ctx.globals.query, command?.jsonResult === true);
      await run(ctx);
    },
    { writeOut: (text) => io.stdout.write(text) },
  );

  try {
    // A bare `petctl` asks what petctl can do: the help, on stdout, and success.
    await program.parseAsync(argv.length === 0 ? ['--help'] : argv, { from: 'user' });
    return ExitCode.OK;
  } catch (error) {
    const wantsJson = jsonErrors(argv, ctx);
    return reportError(error, argv, io, wantsJson, deps.signal);
  } finally {
    await ctx?.cleanup();
  }
}

/** A --query that cannot work fails before anything is sent (exit 2). */
async function checkQuery(expression: string, jsonResult: boolean): Promise<void> {
  if (!jsonResult) throw new UsageError('--query applies only to commands with a JSON result', 'pets list|add|get, api, auth status, profile list|show');
  const { compileQuery } = await import('./output/query');
  compileQuery(expression);
}

/** -o json/ndjson makes errors a JSON line on stderr too; read from argv when parsing itself failed. */
function jsonErrors(argv: string[], ctx: Context | undefined): boolean {
  if (ctx) return ctx.globals.output === 'json' || ctx.globals.output === 'ndjson';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--json' || /^(--output=|-o=?)n?d?json$/.test(arg)) return true;
    if ((arg === '-o' || arg === '--output') && /^n?d?json$/.test(argv[i + 1] ?? '')) return true;
  }
  return false;
}

function toPetctlError(error: unknown, argv: string[], signal: AbortSignal): PetctlError | { exitCode: number; silent: true } {
  if (error instanceof PetctlError) return error;
  if (error instanceof CommanderError) {
    // --help and --version end with these codes after printing, and a group without a subcommand
    // (`petctl pets`) with commander.help after printing its help, on stdout (commands/root.ts).
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return { exitCode: ExitCode.OK, silent: true };
    const { helpCommand = 'petctl --help', failedIn } = error as CommanderError & { helpCommand?: string; failedIn?: Command };
    if (error.code === 'commander.excessArguments' && failedIn !== undefined) return leftoverWordsError(failedIn, argv, `see ${helpCommand}`);
    // An unknown command that is no typo of one may be the rest of a value: `-p my shelter pets list`.
    const unquoted = error.code === 'commander.unknownCommand' && failedIn !== undefined && !error.message.includes('Did you mean') ? unquotedValueError(failedIn, argv) : undefined;
    if (unquoted !== undefined) return unquoted;
    return new UsageError(usageMessage(error), `see ${helpCommand}`);
  }
  if (signal.aborted) return new InterruptedError();
  const message = error instanceof Error ? error.message : String(error);
  return new FailureError(`unexpected failure: ${message}`, { code: 'internal_error', cause: error });
}

/**
 * Commander's message in one line and in the user's terms; a bad value names its flag or
 * argument and repeats the value as typed:
 *   unknown command 'pet'\n(Did you mean pets?)  ->  unknown command 'pet' (did you mean 'pets'?)
 *   option '--category-id <int64>' argument 'cat' is invalid. must be a whole number
 *                                                ->  --category-id must be a whole number, not "cat"
 *   command-argument value 'abc' is invalid for argument 'petId'. must be a whole number
 *                                                ->  petId must be a whole number, not "abc"
 */
export function usageMessage(error: CommanderError): string {
  const message = error.message.replace(/^error: /, '');
  const option = /^option '([^']*)' argument '([\s\S]*)' is invalid\. ([\s\S]*)$/.exec(message);
  if (option) return badValue(/--[\w-]+/.exec(option[1]!)?.[0] ?? option[1]!.split(' ')[0]!, option[2]!, option[3]!);
  const argument = /^command-argument value '([\s\S]*)' is invalid for argument '([^']+)'\. ([\s\S]*)$/.exec(message);
  if (argument) return badValue(argument[2]!, argument[1]!, argument[3]!);
  return message.replace(/\s*\n\(Did you mean (one of )?(.+)\?\)$/, (_match, oneOf: string | undefined, names: string) =>
    ` (did you mean ${oneOf ?? ''}${names.split(', ').map((name) => `'${name}'`).join(', ')}?)`,
  ).replace(/\s*\n\s*/g, ' ');
}

/** `--limit must be a whole number from 1 to 100, not "0"`; commander's own choices say "Allowed choices are a, b." */
function badValue(name: string, value: string, why: string): string {
  const must = why.replace(/^Allowed choices are ([\s\S]*?)\.?$/, 'must be one of $1').replace(/\.$/, '');
  // Plain quotes: stderr's sanitizer shows any control character in the value as an escape.
  return `${name} ${must}, not "${value}"`;
}

/**
 * The JSON error line: the server's Error body as received, or petctl's own
 * {code, message, status}. An error that knows when a retry may succeed adds
 * `retryAt` (UTC, ISO 8601), rounded up to the second so that a script which
 * sleeps until then is never early; it replaces any field of that name a
 * server put in its body, whose meaning petctl cannot vouch for.
 */
function jsonError(failure: PetctlError): Record<string, unknown> {
  const fields = failure.body ?? { code: failure.code, message: failure.message, status: failure.status };
  const retryAt = rateLimitCause(failure)?.retryAt;
  if (retryAt === undefined || !Number.isFinite(retryAt)) return fields;
  return { ...fields, retryAt: new Date(Math.ceil(retryAt / 1000) * 1000).toISOString() };
}

function reportError(error: unknown, argv: string[], io: IO, wantsJson: boolean, signal: AbortSignal): number {
  const failure = toPetctlError(error, argv, signal);
  if (!(failure instanceof PetctlError)) return failure.exitCode;
  if (failure instanceof InterruptedError) {
    // The shell already shows ^C; a newline keeps the prompt on its own line.
    io.stderr.write('\n');
    return failure.exitCode;
  }
  if (wantsJson) {
    // JSON.stringify escapes C0 only; C1 and bidi controls get \u escapes too, the same JSON value.
    const line = JSON.stringify(jsonError(failure), (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
    io.stderr.write(`${safeText(line, { json: true })}\n`);
    return failure.exitCode;
  }
  // A refusal from saved state has the 429's status, but no answer came: its message says "nothing sent".
  const answered = failure.status !== 0 && rateLimitCause(failure)?.stop?.by !== 'gate';
  const where = answered ? `${failure.code}, HTTP ${failure.status}` : failure.code;
  // The message and hint may quote the server, a file or its name: never raw on stderr.
  io.stderr.write(`${safeLine(`error: ${failure.message} (${where})`)}\n`);
  if (failure.hint) io.stderr.write(`${safeLine(`hint: ${failure.hint}`)}\n`);
  return failure.exitCode;
}
