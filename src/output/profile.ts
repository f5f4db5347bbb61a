import type { BlockReason, LimitEntry } from '../api/limits/entry';
import type { ResolvedTarget, StatePasswordSource } from '../config/target';
import { renderDetails } from './details';
import type { OutputFormat } from './format';
import { formatLocalDateTime } from './time';

/** What `auth status` and `profile show` say of the target, and what `profile show` says beyond the profile's own fields. */

/** Where each part of the target came from, in the one wording both commands use. */
const SOURCES = {
  profile: { flag: 'from --profile', env: 'from PETCTL_PROFILE', active: 'active profile', none: 'the base URL and key are given without one' },
  baseUrl: { flag: 'from --base-url', env: 'from PETCTL_BASE_URL', profile: 'from the profile', sandbox: 'embedded sandbox, in this process' },
  key: { env: 'from PETCTL_API_KEY', profile: 'from the profile', 'sandbox-default': 'built-in sandbox key' },
} as const;

/** Said once on a terminal after a write to the built-in sandbox (app/session.ts). */
export const SANDBOX_WRITE_LINE = 'sandbox: created in the built-in sandbox, not a real service';

/** The embedded sandbox before it is started (a new port every run). */
export const SANDBOX_URL_TEXT = 'embedded sandbox (in-process)';

export interface TargetText {
  profile: string;
  baseUrl: string;
  /** The key in use, masked, with its source; undefined when there is none. */
  key: string | undefined;
}

/**
 * The profile, base URL and key in use, each with where it came from:
 * `production (active profile)`, `https://… (from PETCTL_BASE_URL)`, `****-pro (from PETCTL_API_KEY)`.
 * `named`: the profile was named by the command's argument (profile show <name>), so only whether it is the active one is said.
 * `storage`: a stored key in use says where it is kept too (`from the profile, in the keychain`), so one phrase tells where the key comes from.
 */
export function describeTarget(target: ResolvedTarget, maskedKey: string | undefined, named = false, storage = false): TargetText {
  const activeNote = target.profile === target.activeProfile ? ` (${SOURCES.profile.active})` : '';
  const profile =
    target.profile === undefined ? `none (${SOURCES.profile.none})` : named ? `${target.profile}${activeNote}` : `${target.profile} (${SOURCES.profile[target.profileSource]})`;
  const baseUrl = target.baseUrl === undefined ? SANDBOX_URL_TEXT : `${target.baseUrl} (${SOURCES.baseUrl[target.baseUrlSource]})`;
  const source = target.keySource ?? 'profile';
  const kept = storage && source === 'profile' && target.keyStorage ? `, in the ${target.keyStorage}` : '';
  const key = maskedKey === undefined ? undefined : `${maskedKey} (${SOURCES.key[source]}${kept})`;
  return { profile, baseUrl, key };
}

/** What -v says of the target before the first request, as curl marks its own notes: `* base URL … (from PETCTL_BASE_URL); key ****ness (from PETCTL_API_KEY); profile none (…)`. */
export function targetTraceLine(target: ResolvedTarget & { baseUrl: string }, maskedKey: string): string {
  const said = describeTarget(target, maskedKey, false, true);
  return `* base URL ${said.baseUrl}; key ${said.key}; profile ${said.profile}`;
}

const PASSWORD_SOURCES: Record<StatePasswordSource, string> = {
  env: '; password from PETCTL_STATE_PASSWORD',
  profile: '; password stored',
  url: '; password in the URL',
};

/** Where the state store's password in use comes from, after the URL's own source: `; password stored`. */
export function passwordText(source: StatePasswordSource | undefined): string {
  return source === undefined ? '' : PASSWORD_SOURCES[source];
}

/** What this machine last saw of a key's limits, while it still holds (`profile show`). */
export interface LastSeenLimits {
  limit?: number;
  remaining?: number;
  resetAt?: number;
  blockedUntil?: number;
  reason?: BlockReason;
}

/** The parts of the key's record that still hold at `now`; undefined when nothing current is known. */
export function lastSeen(entry: LimitEntry | undefined, now: number): LastSeenLimits | undefined {
  const blocked = entry?.blockedUntil !== undefined && entry.blockedUntil > now;
  const window = entry?.window !== undefined && entry.window.resetAt > now ? entry.window : undefined;
  if (!blocked && !window) return undefined;
  return {
    ...(window ? { limit: window.limit, remaining: window.remaining, resetAt: window.resetAt } : {}),
    ...(blocked ? { blockedUntil: entry.blockedUntil, reason: entry.reason } : {}),
  };
}

/** `12 of 60 left, resets 2026-11-25 14:32:05; as last seen on this machine (…)` */
export function describeSeen(seen: LastSeenLimits | undefined): string {
  const ask = 'petctl auth status asks the service';
  if (!seen) return `none seen on this machine in the current window (${ask})`;
  const parts: string[] = [];
  if (seen.blockedUntil !== undefined) parts.push(`nothing is sent before ${formatLocalDateTime(seen.blockedUntil)} (${seen.reason ?? 'rate_limited'})`);
  if (seen.remaining !== undefined && seen.resetAt !== undefined) {
    parts.push(`${seen.remaining}${seen.limit === undefined ? '' : ` of ${seen.limit}`} left, resets ${formatLocalDateTime(seen.resetAt)}`);
  }
  return `${parts.join('; ')}; as last seen on this machine (${ask})`;
}

export interface NoneChosen {
  name: null;
  active: false;
  chosen: false;
  profiles: string[];
  configFile: string;
}

/** `profile show`'s JSON result while none is chosen. */
export function noneChosen(profiles: string[], configFile: string): NoneChosen {
  return { name: null, active: false, chosen: false, profiles, configFile };
}

/** `profile show` while other profiles exist and none is chosen: which there are, and how to choose. */
export function renderNoneChosen(object: NoneChosen, format: OutputFormat): string {
  const choose = 'commands that talk to the service stop (no_profile) until one is chosen with petctl profile use <name> or -p <name>';
  return renderDetails(
    [
      { key: 'name', label: 'Profile', text: `none chosen: ${choose}` },
      { key: 'profiles', label: 'Profiles', text: object.profiles.join(', ') },
      { key: 'configFile', label: 'Config', text: object.configFile },
    ],
    { ...object },
    format,
  );
}
