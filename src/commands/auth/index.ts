import type { Command } from 'commander';
import type { Invoke } from '../types';

export function registerAuth(program: Command, invoke: Invoke): void {
  const auth = program.command('auth').helpCommand(false).description("store, check and remove the profile's API key");
  auth
    .command('login')
    .description('check an API key with the service and store it in the profile (hidden prompt on a terminal)')
    .option('--with-token', 'read the key from standard input (also when stdin is not a terminal)')
    .option('--no-verify', 'store the key without checking it (e.g. offline)')
    .option('--insecure-storage', "store the key in config.json (mode 0600) rather than the system's keychain")
    .addHelpText(
      'after',
      `
Examples:
  $ petctl auth login                              # prompts, echoing nothing
  $ petctl auth login -p staging --with-token < key.txt
  $ printf %s "$PET_KEY" | petctl auth login --with-token
  $ petctl auth login -p production --no-verify --with-token < key.txt

The key is checked with one request (GET /pets?limit=1): accepted, it is
stored and the plan's rate limit shown; a 401 is "key not accepted", exit 4;
a 404 means the base URL is wrong, exit 2; any other answer than a success
stores nothing either. A service that cannot be reached at all stores it
with a warning.
The key goes to the system's keychain (Secret Service, macOS Keychain, Windows
Credential Manager) and config.json keeps only where it is; with no keychain
answering within 3 s, or with --insecure-storage, config.json (mode 0600) holds it.
A profile that had a key says which it replaced, masked:
  replaced the key ****-pro with ****ness for profile staging
With --no-input (PETCTL_NO_INPUT=1) it never prompts: pipe the key with --with-token.
The key is never a flag (it would land in shell history and ps output).`,
    )
    .action((options: { withToken?: boolean; verify: boolean; insecureStorage?: boolean }) =>
      invoke(async (ctx) => (await import('./login')).loginRun(options, ctx)),
    );
  auth
    .command('status')
    .description('check the API key with GET /pets?limit=1 and show the profile, masked key, rate limit and configuration file')
    .addHelpText('after', '\nExamples:\n  $ petctl auth status\n  $ petctl auth status -p production -o json\n  $ petctl auth status --query rateLimit.remaining')
    .action(() => invoke(async (ctx) => (await import('./status')).statusRun(ctx), { jsonResult: true }));
  auth
    .command('logout')
    .description("remove the profile's stored API key, from the keychain or config.json")
    .addHelpText('after', '\nExample:\n  $ petctl auth logout -p staging')
    .action(() => invoke(async (ctx) => (await import('./logout')).logoutRun(ctx)));
}
