import { Argument, type Command } from 'commander';
import { completesWith } from '../../completion/values';
import type { Context } from '../../context';
import { UsageError } from '../../errors';
import type { Invoke } from '../types';
import { STATE_PASSWORD_HELP, STATE_URL_HELP, notePasswordPlace, readStatePassword, warnIfPasswordInClear } from './state-store';

export interface ProfileSetOptions {
  name: string;
  baseUrl?: string;
  stateUrl?: string;
  statePasswordStdin?: boolean;
}

export function registerProfileSet(profile: Command, invoke: Invoke): void {
  profile
    .command('set')
    .description("change a profile's base URL or state URL; its key stays")
    .addArgument(completesWith(new Argument('<name>', 'profile name'), 'profiles'))
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
    .action((name: string, flags: { stateUrl?: string; statePasswordStdin?: boolean }) =>
      invoke((ctx) => profileSetRun({ name, baseUrl: ctx.globals.baseUrl, stateUrl: flags.stateUrl, statePasswordStdin: flags.statePasswordStdin === true }, ctx)),
    );
}

export async function profileSetRun(options: ProfileSetOptions, ctx: Context): Promise<void> {
  const { name, baseUrl, stateUrl } = options;
  if (baseUrl === undefined && stateUrl === undefined && !options.statePasswordStdin) {
    throw new UsageError('nothing to change: give --base-url <url>, --state-url <url> or --state-password-stdin', `e.g. petctl profile set ${name} --base-url https://api.example.org/v1`);
  }
  const store = await ctx.profiles();
  // An unknown profile is refused by update, before anything is read.
  const statePassword = options.statePasswordStdin && store.get(name) !== undefined ? await readStatePassword(ctx, name, stateUrl ?? store.get(name)?.stateUrl) : undefined;
  notePasswordPlace(ctx, await store.update(name, { baseUrl, stateUrl, statePassword }), store.path);
  const stored = store.get(name);
  if (stored?.stateUrl !== undefined && (stateUrl ?? statePassword) !== undefined) await warnIfPasswordInClear(ctx, stored.stateUrl, stored.statePassword !== undefined);
  const changed = [
    baseUrl === undefined ? '' : `base URL ${stored?.baseUrl}`,
    stateUrl === undefined ? '' : 'state URL',
    statePassword === undefined ? '' : 'state store password',
  ].filter(Boolean);
  ctx.notice(`Profile "${name}" changed: ${changed.join(', ')}; its key is kept.`);
}
