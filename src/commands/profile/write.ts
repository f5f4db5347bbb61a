import type { SecretPlacement } from '../../config/keychain';
import { stateStoreAddress } from '../../config/state-url';
import { maskKey } from '../../config/target';
import { isLoopbackHost } from '../../config/url-check';
import type { Context } from '../../context';
import { UsageError } from '../../errors';
import { confirmOrStop, promptBaseUrl, readSecret } from '../../input/prompts';
import { describeKeyPlace } from '../../output/profile';

/** The changes to config.json: profile add, set, use and remove, and a profile's state store values. */

export async function profileAddRun(options: ProfileOptions, ctx: Context): Promise<void> {
  const { name, stateUrl } = options;
  const baseUrl = options.baseUrl ?? (await promptBaseUrl(ctx));
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

export async function profileUseRun(options: { name: string }, ctx: Context): Promise<void> {
  const store = await ctx.profiles();
  await store.use(options.name);
  ctx.notice(`Active profile: ${options.name}`);
  if (ctx.env.PETCTL_PROFILE && ctx.env.PETCTL_PROFILE !== options.name) {
    ctx.warn(`PETCTL_PROFILE=${ctx.env.PETCTL_PROFILE} is set and takes precedence while it is`);
  }
}

/** --yes: remove a profile holding a key without asking. */
export async function profileRemoveRun(options: { name: string; yes: boolean }, ctx: Context): Promise<void> {
  const store = await ctx.profiles();
  const stored = store.get(options.name);
  if (stored && !stored.builtIn && stored.apiKey !== undefined) {
    await confirmOrStop(ctx, {
      question: `Remove profile "${options.name}" and its API key ${typeof stored.apiKey === 'string' ? maskKey(stored.apiKey) : '(in the keychain)'}?`,
      yes: options.yes,
      action: `removing profile "${options.name}" and its API key`,
      kept: `profile "${options.name}" and its key are kept`,
      withYes: `petctl profile remove ${options.name} --yes`,
    });
  }
  const wasActive = store.activeName() === options.name;
  await store.remove(options.name);
  const next = store.activeName();
  const after = next === undefined ? ' No profile is chosen now: choose one with petctl profile use <name>.' : ` The active profile is now "${next}".`;
  ctx.notice(`Profile "${options.name}" removed.${wasActive ? after : ''}`);
}

/** What `profile add` and `profile set` are given: --base-url is the global flag. */
export interface ProfileOptions {
  name: string;
  baseUrl?: string;
  stateUrl?: string;
  statePasswordStdin?: boolean;
}

/** The password --state-password-stdin reads for the profile's state URL; one in the URL as well is refused, so that it is clear which is used. */
async function readStatePassword(ctx: Context, name: string, stateUrl: string | undefined): Promise<string> {
  if (stateUrl === undefined) {
    throw new UsageError(`profile ${JSON.stringify(name)} has no state URL for the password`, `give one: petctl profile set ${name} --state-url redis://host:6379/0 --state-password-stdin`);
  }
  if (stateStoreAddress(stateUrl).password !== undefined) {
    throw new UsageError('the state URL holds a password and --state-password-stdin reads another', 'leave the password out of the URL');
  }
  return readSecret(ctx, {
    what: 'state store password',
    prompt: `State store password for profile "${name}": `,
    hint: `printf %s "$PASSWORD" | petctl profile set ${name} --state-password-stdin`,
    fromStdin: false,
  });
}

/** redis:// beyond this machine would carry the state store's password unencrypted. */
async function warnIfPasswordInClear(ctx: Context, stateUrl: string, storedPassword: boolean): Promise<void> {
  const address = stateStoreAddress(stateUrl);
  if ((storedPassword || address.password !== undefined) && !address.tls && !isLoopbackHost(address.host)) {
    ctx.warn('redis:// sends the state store\'s password unencrypted; prefer rediss:// beyond a trusted network');
  }
}

/** A password meant for the keychain that went to config.json says so, as auth login does for a key. */
function notePasswordPlace(ctx: Context, placed: SecretPlacement | undefined, configFile: string): void {
  if (placed?.keychainFailure) ctx.notice(describeKeyPlace(configFile, 'the state store password'));
}
