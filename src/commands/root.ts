import { Command, type CommanderError, type ErrorOptions, Option } from 'commander';
import { type GlobalOptions, OUTPUT_FORMATS } from '../globals';
import { completesWith } from '../completion/complete';
import { VERSION } from '../version';
import { registerAuth } from './auth';
import { GUIDES_HELP, registerHelp } from './help';
import { BAD_VALUE, nameBadValues, parseCount, parsePositiveSeconds, parseSeconds } from './parsers';
import { registerPets } from './pets';
import { registerProfile } from './profile';
import { registerTopLevel } from './top-level';
import type { Invoke } from './types';

type RawGlobals = Pick<GlobalOptions, 'profile' | 'output' | 'baseUrl' | 'retries' | 'color' | 'query'> & {
  json?: boolean;
  timeout: number;
  maxWait: number;
  verbose?: boolean;
  quiet?: boolean;
  input: boolean;
};

/** The global flags as commands are given them; the environment's fallbacks for profile and base URL are config/target.ts's. */
export function globalOptions(program: Command): GlobalOptions {
  const { json, timeout, maxWait, verbose, quiet, input, ...same } = program.opts<RawGlobals>();
  return {
    ...same,
    output: json ? 'json' : same.output,
    timeoutMs: Math.round(timeout * 1000),
    maxWaitMs: Math.round(maxWait * 1000),
    verbose: verbose === true,
    quiet: quiet === true,
    ...(input === false ? { noInput: true } : {}),
  };
}

/** A global flag's first bad value is held until all its flags are parsed: `--timeout 0 -o json` errs in JSON. */
class Program extends Command {
  private badValue?: string;

  constructor(name: string) {
    super(name);
    // --version answers as it is parsed: listening before .version() does, a bad value before it comes first.
    this.on('option:version', () => this.raiseBadValue());
  }

  holdBadValue(message: string): void {
    this.badValue ??= message;
  }

  override parseOptions(argv: string[]): ReturnType<Command['parseOptions']> {
    const parsed = super.parseOptions(argv);
    this.raiseBadValue();
    return parsed;
  }

  override error(message: string, options?: ErrorOptions): never {
    return this.badValue === undefined ? super.error(message, options) : super.error(this.badValue, { code: BAD_VALUE });
  }

  private raiseBadValue(): void {
    if (this.badValue !== undefined) this.error(this.badValue);
  }
}

/** The command tree, loading no run module; subcommands inherit the settings made before they are added. */
export function buildProgram(invoke: Invoke, output: { writeOut(text: string): void }): Command {
  const program = new Program('petctl')
    // Called on the command whose parsing failed, which usage-errors.ts words the error with.
    .exitOverride(function (this: Command, error: CommanderError) {
      throw Object.assign(error, { failedIn: this });
    })
    .configureOutput({
      writeOut: output.writeOut,
      // Commander's only use of it here: a group's help when no subcommand follows (`petctl pets`), answered as --help.
      writeErr: output.writeOut,
      getErrHelpWidth: () => (process.stdout.isTTY ? process.stdout.columns : undefined) as number,
      outputError: () => {},
    })
    .description('Command-line client for the Pet Adoption Service')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .showSuggestionAfterError(true)
    .addOption(completesWith(new Option('-p, --profile <name>', 'profile to use (env PETCTL_PROFILE; else the active profile)'), 'profiles'))
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'))
    .option('--json', 'same as --output json')
    .option('--base-url <url>', "override the profile's base URL (env PETCTL_BASE_URL), e.g. https://api.example.org/v1")
    .addOption(new Option('--timeout <seconds>', 'per-request timeout').argParser(parsePositiveSeconds).default(30))
    .addOption(
      new Option('--retries <n>', 'retries after a 429, and for GET also after 502/503/504 or a network error').argParser(parseCount).default(4),
    )
    .addOption(
      new Option('--max-wait <seconds>', 'most a command waits in all (429 Retry-After, ban, rate-limit window, day quota, backoff) before exit 5; an import\'s waits for the next minute window do not count (0 = never wait)').argParser(parseSeconds).default(60),
    )
    .option('-v, --verbose', 'HTTP trace on stderr (Authorization redacted)')
    .option('-q, --quiet', 'no notices or warnings on stderr')
    .option('--no-color', 'no colour (also NO_COLOR=1); never coloured when stdout is not a terminal')
    .option('--no-input', 'never prompt for missing values, even on a terminal (also PETCTL_NO_INPUT=1)')
    .option('--query <jmespath>', 'filter the JSON result with a JMESPath expression (pets list|add|get, api, auth status, profile list|show)');

  program.addHelpText(
    'after',
    `
Examples:
  $ petctl pets list --status available
  $ petctl pets add --name Rex --category-id 1
  $ petctl -p staging pets list -o json | jq '.[].name'
  $ petctl profile add production --base-url https://api.example.org/v1
  $ petctl pets list --all --query '[?status==\`available\`].name'
  $ petctl api '/pets?status=available'

Exit codes: 0 ok, 1 unexpected, 2 usage, 3 not found, 4 auth, 5 rate limited,
6 rejected (400), 7 network/server/invalid response/redirect; interrupted, petctl
ends by the signal itself (130 after Ctrl-C, 143 after SIGTERM) so a loop stops.

${GUIDES_HELP}`,
  );

  registerPets(program, invoke);
  registerAuth(program, invoke);
  registerProfile(program, invoke);
  registerTopLevel(program, invoke);
  registerHelp(program, invoke);
  nameBadValues(program, (message) => program.holdBadValue(message));
  return program;
}
