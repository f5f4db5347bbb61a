import type { LimitEntry } from '../api/limits/entry';
import type { KeySet } from '../config/keychain';
import { maskKey, type ResolvedTarget, type StatePasswordSource } from '../config/target';
import { renderDetails } from './formats';
import type { OutputFormat } from '../globals';
import { formatLocalDateTime } from './time';

/** What `auth status`, `profile show` and `auth login` say of the target, its key and its limits. */

const SOURCES = {
  profile: { flag: 'from --profile', env: 'from PETCTL_PROFILE', active: 'active profile', none: 'the base URL and key are given without one' },
  baseUrl: { flag: 'from --base-url', env: 'from PETCTL_BASE_URL', profile: 'from the profile', sandbox: 'embedded sandbox, in this process' },
  key: { env: 'from PETCTL_API_KEY', profile: 'from the profile', 'sandbox-default': 'built-in sandbox key' },
} as const;

/** Said once on a terminal after a write to the built-in sandbox. */
export const SANDBOX_WRITE_LINE = 'sandbox: created in the built-in sandbox, not a real service';

/** The embedded sandbox before it is started (a new port every run). */
export const SANDBOX_URL_TEXT = 'embedded sandbox (in-process)';

/** `named`: profile show <name> says only whether it is the active one; `storage`: where a stored key is kept. */
export function describeTarget(target: ResolvedTarget, maskedKey: string | undefined, named = false, storage = false) {
  const activeNote = target.profile === target.activeProfile ? ` (${SOURCES.profile.active})` : '';
  const profile =
    target.profile === undefined ? `none (${SOURCES.profile.none})` : named ? `${target.profile}${activeNote}` : `${target.profile} (${SOURCES.profile[target.profileSource]})`;
  const baseUrl = target.baseUrl === undefined ? SANDBOX_URL_TEXT : `${target.baseUrl} (${SOURCES.baseUrl[target.baseUrlSource]})`;
  const source = target.keySource ?? 'profile';
  const kept = storage && source === 'profile' && target.keyStorage ? `, in the ${target.keyStorage}` : '';
  const key = maskedKey === undefined ? undefined : `${maskedKey} (${SOURCES.key[source]}${kept})`;
  return { profile, baseUrl, key };
}

/** What -v says of the target before the first request, marked `*` as curl marks its own notes. */
export function targetTraceLine(target: ResolvedTarget & { baseUrl: string }, maskedKey: string): string {
  const said = describeTarget(target, maskedKey, false, true);
  return `* base URL ${said.baseUrl}; key ${said.key}; profile ${said.profile}`;
}

/** Where the state store's password comes from, after the URL's own source. */
export function passwordText(source: StatePasswordSource | undefined): string {
  return source === undefined ? '' : { env: '; password from PETCTL_STATE_PASSWORD', profile: '; password stored', url: '; password in the URL' }[source];
}

/** The parts of the key's record that still hold at `now` (`profile show`); undefined when nothing current is known. */
export function lastSeen(entry: LimitEntry | undefined, now: number) {
  const blocked = entry?.blockedUntil !== undefined && entry.blockedUntil > now;
  const window = entry?.window !== undefined && entry.window.resetAt > now ? entry.window : undefined;
  if (!blocked && !window) return undefined;
  return {
    ...(window ? { limit: window.limit, remaining: window.remaining, resetAt: window.resetAt } : {}),
    ...(blocked ? { blockedUntil: entry.blockedUntil, reason: entry.reason } : {}),
  };
}

export function describeSeen(seen: ReturnType<typeof lastSeen>): string {
  const ask = 'petctl auth status asks the service';
  if (!seen) return `none seen on this machine in the current window (${ask})`;
  const parts: string[] = [];
  if (seen.blockedUntil !== undefined) parts.push(`nothing is sent before ${formatLocalDateTime(seen.blockedUntil)} (${seen.reason ?? 'rate_limited'})`);
  if (seen.remaining !== undefined && seen.resetAt !== undefined) {
    parts.push(`${seen.remaining}${seen.limit === undefined ? '' : ` of ${seen.limit}`} left, resets ${formatLocalDateTime(seen.resetAt)}`);
  }
  return `${parts.join('; ')}; as last seen on this machine (${ask})`;
}

/** `profile show` while other profiles exist and none is chosen: its JSON result, and its view. */
export function noneChosen(profiles: string[], configFile: string, format: OutputFormat) {
  const object = { name: null, active: false, chosen: false, profiles, configFile };
  const choose = 'commands that talk to the service stop (no_profile) until one is chosen with petctl profile use <name> or -p <name>';
  const fields = [
    { key: 'name', label: 'Profile', text: `none chosen: ${choose}` },
    { key: 'profiles', label: 'Profiles', text: profiles.join(', ') },
    { key: 'configFile', label: 'Config', text: configFile },
  ];
  return { object, render: (tty: boolean) => renderDetails(fields, object, format, tty) };
}

/** What `auth login` says of the key it stored, in masks only. Two keys may mask alike (short ones all print as
 * `****`): that is said rather than shown as a change from `****` to `****`. A replaced key in a keychain that could
 * not be read is said to be replaced all the same. */
export function describeKeyChange(profile: string, change: Pick<KeySet, 'replaced' | 'previous'>, next: string): string | undefined {
  if (!change.replaced) return undefined;
  const { previous } = change;
  const after = maskKey(next);
  if (previous === undefined) return `replaced the key in the keychain with ${after} for profile ${profile}`;
  const before = maskKey(previous);
  if (previous === next) return `the key for profile ${profile} is unchanged (${after})`;
  if (before === after) return `replaced the key ${before} with a different key, also shown as ${after}, for profile ${profile}`;
  return `replaced the key ${before} with ${after} for profile ${profile}`;
}

/** Where the replaced key is still kept, so that it can be deleted by hand. */
export function describeKeyLeftBehind(left: NonNullable<KeySet['leftBehind']>): string {
  return `the old key could not be removed from the keychain (${left.reason}); it is still there as service ${left.ref.service}, account ${left.ref.account}`;
}

/** Said once, when a secret meant for the keychain went to config.json because no keychain answered. */
export function describeKeyPlace(configFile: string, what = 'the key'): string {
  return `no keychain available: ${what} is stored in ${configFile} (mode 0600)`;
}
