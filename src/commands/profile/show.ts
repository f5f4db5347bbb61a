import type { Context } from '../../context';
import { renderDetails } from '../../output/formats';
import { writeResult } from '../../output/records';
import { stateStoreLine } from '../../output/state-store';
import { PetctlError } from '../../errors';
import type { StoredProfile } from '../../config/profiles';
import { unknownProfile } from '../../config/config-file';
import { type ResolvedTarget, maskKey, readTargetSecrets, resolveTarget } from '../../config/target';
import { maskStateUrl } from '../../config/state-url';
import { openFileStore } from '../../api/limits/file-store';
import { describeSeen, describeTarget, lastSeen, noneChosen, passwordText } from '../../output/profile';

export async function profileShowRun(options: { name?: string }, ctx: Context): Promise<void> {
  const store = await ctx.profiles();
  const names = store.list().map((profile) => profile.name);
  if (options.name !== undefined && store.get(options.name) === undefined) throw unknownProfile(options.name, names);
  let target: ResolvedTarget;
  try {
    target = resolveTarget(store, { profileFlag: options.name ?? ctx.globals.profile, baseUrlFlag: ctx.globals.baseUrl, env: ctx.env, sandboxDataFile: ctx.paths.sandboxDataFile });
    target = await readTargetSecrets(target, store);
  } catch (error) {
    // Offline, it can say so rather than stop: which profiles there are, and how to choose one.
    if (error instanceof PetctlError && error.code === 'no_profile') {
      const { object, render } = noneChosen(names, store.path, ctx.globals.output);
      return writeResult(ctx, object, render);
    }
    throw error;
  }
  const stored = target.profile === undefined ? undefined : store.get(target.profile);
  const overrides = target.profile === undefined ? [] : [
    ...(ctx.env.PETCTL_API_KEY ? ['PETCTL_API_KEY overrides the stored key'] : []),
    ...(target.baseUrlSource === 'env' ? ['PETCTL_BASE_URL overrides the base URL'] : []),
    ...(target.baseUrlSource === 'flag' ? ['--base-url overrides the base URL'] : []),
    ...(target.stateUrlSource === 'env' ? ['PETCTL_STATE_URL overrides the state store'] : []),
  ];
  // What this machine last saw of the key's limits (offline; `auth status` asks the service).
  const now = ctx.now();
  const recorded = target.apiKey && (await openFileStore(ctx.paths.stateFile, target.identity, target.apiKey, () => now, { report: (notice) => ctx.warn(stateStoreLine(notice)) }).read());
  const seen = lastSeen(recorded || undefined, now);
  const object = {
    name: target.profile ?? null,
    active: target.profile !== undefined && target.profile === store.activeName(),
    builtIn: stored?.builtIn ?? false,
    baseUrl: stored?.baseUrl ?? null,
    effectiveBaseUrl: target.baseUrl ?? null,
    storedKey: storedKeyText(stored?.apiKey, target),
    keyStorage: target.keyStorage ?? null,
    effectiveKey: target.apiKey ? maskKey(target.apiKey) : null,
    keySource: target.keySource ?? null,
    // Only when a state store is in use: without one there is nothing to say of it.
    ...(target.stateUrl
      ? { stateUrl: maskStateUrl(target.stateUrl), stateUrlSource: target.stateUrlSource ?? null, statePasswordSource: target.statePasswordSource ?? null }
      : {}),
    overrides,
    rateLimit: seen ? { limit: seen.limit ?? null, remaining: seen.remaining ?? null, reset: isoTime(seen.resetAt), blockedUntil: isoTime(seen.blockedUntil), reason: seen.reason ?? null } : null,
    configFile: store.path,
  };
  const said = describeTarget(target, object.effectiveKey ?? undefined, options.name !== undefined);
  await writeResult(ctx, object, (tty) =>
    renderDetails(
      [
        { key: 'name', label: 'Profile', text: said.profile },
        { key: 'baseUrl', label: 'Base URL', text: said.baseUrl },
        { key: 'storedKey', label: 'Stored key', text: object.storedKey ? `${object.storedKey} (${object.keyStorage})` : object.builtIn ? 'none (uses the built-in sandbox key)' : object.name === null ? 'none (no profile in use)' : 'none: run petctl auth login' },
        { key: 'effectiveKey', label: 'Key in use', text: said.key ?? 'none' },
        ...(object.stateUrl ? [{ key: 'stateUrl', label: 'State store', text: `${object.stateUrl} (${object.stateUrlSource}${passwordText(target.statePasswordSource)})` }] : []),
        { key: 'overrides', label: 'Overrides', text: overrides.length ? overrides.join('; ') : 'none' },
        { key: 'rateLimit', label: 'Rate limit', text: describeSeen(seen) },
        { key: 'configFile', label: 'Config', text: object.configFile },
      ],
      object,
      ctx.globals.output,
      tty,
    ),
  );
}

/** The stored key, masked; one in the keychain is masked only when it was read (PETCTL_API_KEY overriding it, it is not). */
function storedKeyText(stored: StoredProfile['apiKey'], target: ResolvedTarget): string | null {
  if (stored === undefined) return null;
  if (typeof stored === 'string') return maskKey(stored);
  return target.keySource === 'profile' && target.apiKey !== undefined ? maskKey(target.apiKey) : 'in the keychain';
}

function isoTime(epochMs: number | undefined): string | null {
  return epochMs === undefined ? null : new Date(epochMs).toISOString();
}
