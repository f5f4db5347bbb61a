import type { Context } from '../../context';
import { UsageError } from '../../errors';
import { type ProfileOptions, notePasswordPlace, readStatePassword, warnIfPasswordInClear } from './state-store';

export async function profileSetRun(options: ProfileOptions, ctx: Context): Promise<void> {
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
