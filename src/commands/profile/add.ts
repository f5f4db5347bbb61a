import type { Command } from 'commander';
import type { Context } from '../../context';
import type { Invoke } from '../types';
import { STATE_PASSWORD_HELP, STATE_URL_HELP, notePasswordPlace, readStatePassword, warnIfPasswordInClear } from './state-store';

export function registerProfileAdd(profile: Command, invoke: Invoke): void {
  profile
    .command('add')
    .description('add a profile')
    .argument('<name>', 'profile name: letters, digits, ".", "_" and "-"')
    .usage('<name> --base-url <url> [--state-url <url> [--state-password-stdin]]')
    // --base-url is the global flag (root.ts): commander gives a program's options precedence
    // wherever they stand on the line, so the value is read from the global options.
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
    .action((name: string, flags: { stateUrl?: string; statePasswordStdin?: boolean }) =>
      invoke((ctx) => profileAddRun({ name, baseUrl: ctx.globals.baseUrl, stateUrl: flags.stateUrl, statePasswordStdin: flags.statePasswordStdin === true }, ctx)),
    );
}

export interface ProfileAddOptions {
  name: string;
  baseUrl?: string;
  stateUrl?: string;
  statePasswordStdin?: boolean;
}

export async function profileAddRun(options: ProfileAddOptions, ctx: Context): Promise<void> {
  const { name, stateUrl } = options;
  const baseUrl = options.baseUrl ?? (await (await import('../../input/prompts')).promptBaseUrl(ctx));
  const statePassword = options.statePasswordStdin ? await readStatePassword(ctx, name, stateUrl) : undefined;
  const store = await ctx.profiles();
  const added = await store.add(name, baseUrl, { stateUrl, statePassword }, { useIfFirst: true });
  notePasswordPlace(ctx, added.password, store.path);
  if (stateUrl !== undefined) await warnIfPasswordInClear(ctx, stateUrl, statePassword !== undefined);
  ctx.notice(
    added.nowActive
      ? `Profile "${name}" added and now in use (petctl profile use sandbox to go back)`
      : `Profile "${name}" added. Store its key with: petctl auth login -p ${name}`,
  );
}

