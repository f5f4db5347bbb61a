import { CommanderError } from 'commander';
import { buildProgram, globalOptions } from './commands/root';
import { usageError } from './commands/usage-errors';
import { type Context, type ContextDeps, createContext } from './context';
import { ExitCode, FailureError, InterruptedError, PetctlError, UsageError, fileSystemFailure, outputUnwritable, rateLimitCause } from './errors';
import { safeLine, safeText } from './sanitize';
import { stringifyJson } from './schemas/json';
import { type IO, watchOutput } from './terminal';

export { loadedHttpCore } from './context';
/** The command tree, for the build's man and help pages (scripts/man.mjs, scripts/help-pages.mjs). */
export { buildProgram } from './commands/root';

/** Runs the program and turns every error into one clear message and its exit code: the only place petctl ends. */
export async function main(argv: string[], deps: ContextDeps): Promise<number> {
  const { io } = deps;
  const refusedOutput = watchOutput(io.stdout);
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
    const unwritten = outputUnwritable(refusedOutput());
    if (unwritten) throw unwritten;
    return ExitCode.OK;
  } catch (error) {
    // -o json/ndjson makes errors a JSON line on stderr too: as far as commander had parsed the flags.
    const { output } = ctx?.globals ?? globalOptions(program);
    // Help and --version end through commander's error, having printed: they too may find stdout refusing.
    const commander = error instanceof CommanderError;
    const failure = commander ? (usageError(error, argv) ?? outputUnwritable(refusedOutput())) : error;
    return failure === undefined ? ExitCode.OK : reportError(failure, io, output === 'json' || output === 'ndjson', deps.signal);
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

/** The server's Error body as received, or petctl's own {code, message, status}. `retryAt` is rounded up so a script
 * sleeping until then is never early; it replaces a server's field of that name, which petctl cannot vouch for. */
function jsonError(failure: PetctlError): Record<string, unknown> {
  const fields = failure.body ?? { code: failure.code, message: failure.message, status: failure.status };
  const retryAt = rateLimitCause(failure)?.retryAt;
  if (retryAt === undefined || !Number.isFinite(retryAt)) return fields;
  return { ...fields, retryAt: new Date(Math.ceil(retryAt / 1000) * 1000).toISOString() };
}

function reportError(error: unknown, io: IO, wantsJson: boolean, signal: AbortSignal): number {
  const message = error instanceof Error ? error.message : String(error);
  const unexpected = () => new FailureError(`unexpected failure: ${message}`, { code: 'internal_error', cause: error });
  const failure = error instanceof PetctlError ? error : signal.aborted ? new InterruptedError() : (fileSystemFailure(error) ?? unexpected());
  if (failure instanceof InterruptedError) {
    // The shell already shows ^C; a newline keeps the prompt on its own line.
    io.stderr.write('\n');
  } else if (wantsJson) {
    // The server's numbers digit for digit (int64, long decimals), as stdout's JSON keeps them. JSON escapes C0
    // only; C1 and bidi controls get \u escapes too, the same JSON value.
    const line = stringifyJson(jsonError(failure));
    io.stderr.write(`${safeText(line, { json: true })}\n`);
  } else {
    // A refusal from saved state has the 429's status, but no answer came: its message says "nothing sent".
    const answered = failure.status !== 0 && rateLimitCause(failure)?.stop?.by !== 'gate';
    const where = answered ? `${failure.code}, HTTP ${failure.status}` : failure.code;
    // The message and hint may quote the server, a file or its name: never raw on stderr.
    io.stderr.write(`${safeLine(`error: ${failure.message} (${where})`)}\n`);
    if (failure.hint) io.stderr.write(`${safeLine(`hint: ${failure.hint}`)}\n`);
  }
  return failure.exitCode;
}
