import { Argument, type Command } from 'commander';
import { completesWith } from '../../completion/complete';
import type { Invoke } from '../types';
import type { ProfileOptions } from './state-store';

const STATE_URL_HELP = "share the key's rate-limit state with other machines through Redis: redis://host:6379/0 or rediss://… (env PETCTL_STATE_URL)";
const STATE_PASSWORD_HELP =
  "read the state store's password from standard input (a hidden prompt on a terminal); it is stored like the key (env PETCTL_STATE_PASSWORD)";

type StateFlags = Pick<ProfileOptions, 'stateUrl' | 'statePasswordStdin'>;

export function registerProfile(program: Command, invoke: Invoke): void {
  const profile = program.command('profile').helpCommand(false).description('manage profiles: one base URL and one API key each');
  const name = () => completesWith(new Argument('<name>', 'profile name'), 'profiles');
  profile
    .command('list')
    .description('list profiles; * marks the active one')
    .addHelpText('after', "\nExamples:\n  $ petctl profile list\n  $ petctl profile list -o json\n  $ petctl profile list --query '[?active].name | [0]'")
    .action(() => invoke(async (ctx) => (await import('./list')).profileListRun(ctx), { jsonResult: true }));
  profile
    .command('show')
    .description('show a profile (default: the one in use), what overrides it, and where the configuration lives')
    .addArgument(completesWith(new Argument('[name]', 'profile name'), 'profiles'))
    .addHelpText(
      'after',
      `
Examples:
  $ petctl profile show
  $ petctl profile show production -o json
  $ petctl profile show production --query effectiveBaseUrl
  $ petctl auth status -p production      # asks the service: the key, the rate limit`,
    )
    .action((name: string | undefined) => invoke(async (ctx) => (await import('./show')).profileShowRun({ name }, ctx), { jsonResult: true }));
  profile
    .command('add')
    .description('add a profile')
    .argument('<name>', 'profile name: letters, digits, ".", "_" and "-"')
    .usage('<name> --base-url <url> [--state-url <url> [--state-password-stdin]]')
    // --base-url is the global flag (root.ts): commander gives a program's options precedence wherever they stand.
    .option('--state-url <url>', STATE_URL_HELP)
    .option('--state-password-stdin', STATE_PASSWORD_HELP)
    .addHelpText(
      'after',
      `
--base-url <url> is the profile's base URL: https://…/v1 (http only for loopback);
asked for on a terminal when missing.
The first profile besides sandbox, added while none is chosen, is used from then on.
The state store's password is stored like the key (config.json, mode 0600) and never printed.
If the Redis server cannot be reached, petctl warns and uses this machine's state file.

Examples:
  $ petctl profile add production --base-url https://api.example.org/v1
  $ petctl profile add staging --base-url https://staging.example.org/v1
  $ petctl auth login -p staging
  $ petctl profile add staging          # on a terminal: asks for the base URL
  $ petctl profile add shelters --base-url https://api.example.org/v1 --state-url redis://limits.internal:6379/0
  $ printf %s "$REDIS_PASSWORD" | petctl profile add shared --base-url https://api.example.org/v1 \\
      --state-url rediss://redis.example.org:6380/0 --state-password-stdin`,
    )
    .action((name: string, flags: StateFlags) =>
      invoke(async (ctx) => (await import('./add')).profileAddRun({ name, ...flags, baseUrl: ctx.globals.baseUrl }, ctx)),
    );
  profile
    .command('set')
    .description("change a profile's base URL or state URL; its key stays")
    .addArgument(name())
    .usage('<name> [--base-url <url>] [--state-url <url>] [--state-password-stdin]')
    // --base-url is the global flag, as for profile add.
    .option('--state-url <url>', STATE_URL_HELP)
    .option('--state-password-stdin', STATE_PASSWORD_HELP)
    .addHelpText(
      'after',
      `
--base-url <url> is the new base URL: https://…/v1 (http only for loopback).
At least one of --base-url, --state-url and --state-password-stdin; the stored
API key is kept, and so is a stored state store password.

Examples:
  $ petctl profile set production --base-url https://api2.example.org/v1
  $ petctl profile set shelters --state-url redis://limits.internal:6379/0
  $ printf %s "$REDIS_PASSWORD" | petctl profile set shelters --state-password-stdin`,
    )
    .action((name: string, flags: StateFlags) =>
      invoke(async (ctx) => (await import('./set')).profileSetRun({ name, ...flags, baseUrl: ctx.globals.baseUrl }, ctx)),
    );
  profile
    .command('use')
    .description('make a profile the active one')
    .addArgument(name())
    .addHelpText('after', '\nExamples:\n  $ petctl profile use production\n  $ petctl -p staging pets list      # one command only')
    .action((name: string) => invoke(async (ctx) => (await import('./use')).profileUseRun({ name }, ctx)));
  profile
    .command('remove')
    .description('remove a profile and its stored key (asks first when it holds a key)')
    .addArgument(name())
    .option('--yes', 'remove a profile that holds a key without asking (needed off a terminal)')
    .addHelpText(
      'after',
      `
Examples:
  $ petctl profile remove staging          # holding a key: asks "Remove …? (y/N)"
  $ petctl profile remove staging --yes    # in a script: no question
  $ petctl profile set staging --base-url https://staging.example.org/v1   # keeps the key instead

A profile that holds a key is removed only after a "y" on a terminal, or with
--yes. Answering no (or Enter) keeps it and exits 2 (cancelled); with no
terminal to ask on, or --no-input, it keeps it and exits 2 (confirmation_required).`,
    )
    .action((name: string, options: { yes?: boolean }) => invoke(async (ctx) => (await import('./remove')).profileRemoveRun({ name, yes: options.yes === true }, ctx)));
}
