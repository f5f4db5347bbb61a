import { Argument, type Command } from 'commander';
import { completesWith } from '../../completion/values';
import type { Context } from '../../context';
import { UsageError } from '../../errors';
import type { Invoke } from '../root';
import { STATE_URL_HELP, warnIfPasswordInClear } from './add';

export interface ProfileSetOptions {
  name: string;
  baseUrl?: string;
  stateUrl?: string;
}

export function registerProfileSet(profile: Command, invoke: Invoke): void {
  profile
    .command('set')
    .description("change a profile's base URL or state URL; its key stays")
    .addArgument(completesWith(new Argument('<name>', 'profile name'), 'profiles'))
    .usage('<name> [--base-url <url>] [--state-url <url>]')
    // --base-url is the global flag, as for profile add.
    .option('--state-url <url>', STATE_URL_HELP)
    .addHelpText(
      'after',
      `
--base-url <url> is the new base URL: https://…/v1 (http only for loopback).
At least one of --base-url and --state-url; the stored API key is kept.

Examples:
  $ petctl profile set production --base-url https://api2.example.org/v1
  $ petctl profile set shelters --state-url redis://limits.internal:6379/0`,
    )
    .action((name: string, flags: { stateUrl?: string }) =>
      invoke((ctx) => profileSetRun({ name, baseUrl: ctx.globals.baseUrl, stateUrl: flags.stateUrl }, ctx)),
    );
}

export async function profileSetRun(options: ProfileSetOptions, ctx: Context): Promise<void> {
  const { name, baseUrl, stateUrl } = options;
  if (baseUrl === undefined && stateUrl === undefined) {
    throw new UsageError('nothing to change: give --base-url <url>, --state-url <url> or both', `e.g. petctl profile set ${name} --base-url https://api.example.org/v1`);
  }
  const store = await ctx.profiles();
  await store.update(name, { baseUrl, stateUrl });
  if (stateUrl !== undefined) await warnIfPasswordInClear(ctx, stateUrl);
  const changed = [baseUrl === undefined ? '' : `base URL ${store.get(name)?.baseUrl}`, stateUrl === undefined ? '' : 'state URL'].filter(Boolean);
  ctx.notice(`Profile "${name}" changed: ${changed.join(', ')}; its key is kept.`);
}
