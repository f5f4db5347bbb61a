import type { Command } from 'commander';
import type { Context } from '../../context';
import type { Invoke } from '../root';

export const STATE_URL_HELP =
  "share the key's rate-limit state with other machines through Redis: redis://[:password@]host:6379/0 or rediss://… (env PETCTL_STATE_URL)";

export function registerProfileAdd(profile: Command, invoke: Invoke): void {
  profile
    .command('add')
    .description('add a profile')
    .argument('<name>', 'profile name: letters, digits, ".", "_" and "-"')
    .usage('<name> --base-url <url> [--state-url <url>]')
    // --base-url is the global flag (root.ts): commander gives a program's options precedence
    // wherever they stand on the line, so the value is read from the global options.
    .option('--state-url <url>', STATE_URL_HELP)
    .addHelpText(
      'after',
      `
--base-url <url> is the profile's base URL: https://…/v1 (http only for loopback);
asked for on a terminal when missing.
The state URL's password is stored like the key (config.json, mode 0600) and never printed.
If the Redis server cannot be reached, petctl warns and uses this machine's state file.

Examples:
  $ petctl profile add production --base-url https://api.example.org/v1
  $ petctl profile add staging --base-url https://staging.example.org/v1
  $ petctl auth login -p staging
  $ petctl profile add staging          # on a terminal: asks for the base URL
  $ petctl profile add shelters --base-url https://api.example.org/v1 --state-url redis://limits.internal:6379/0
  $ petctl profile add shared --base-url https://api.example.org/v1 --state-url 'rediss://:s3cret@redis.example.org:6380/0'`,
    )
    .action((name: string, flags: { stateUrl?: string }) =>
      invoke((ctx) => profileAddRun({ name, baseUrl: ctx.globals.baseUrl, stateUrl: flags.stateUrl }, ctx)),
    );
}

export async function profileAddRun(options: { name: string; baseUrl?: string; stateUrl?: string }, ctx: Context): Promise<void> {
  const baseUrl = options.baseUrl ?? (await (await import('../../input/prompts')).promptBaseUrl(ctx));
  const store = await ctx.profiles();
  await store.add(options.name, baseUrl, options.stateUrl);
  if (options.stateUrl !== undefined) await warnIfPasswordInClear(ctx, options.stateUrl);
  ctx.notice(`Profile "${options.name}" added. Store its key with: petctl auth login -p ${options.name}`);
}

/** redis:// beyond this machine would carry the state store's password unencrypted. */
export async function warnIfPasswordInClear(ctx: Context, stateUrl: string): Promise<void> {
  const [{ isLoopbackHost }, { stateStoreAddress }] = await Promise.all([import('../../config/base-url'), import('../../config/state-url')]);
  const address = stateStoreAddress(stateUrl);
  if (address.password !== undefined && !address.tls && !isLoopbackHost(address.host)) {
    ctx.warn('redis:// sends the state store\'s password unencrypted; prefer rediss:// beyond a trusted network');
  }
}
