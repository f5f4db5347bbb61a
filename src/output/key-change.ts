import { maskKey } from '../config/target';

/**
 * What `auth login` says about the key it stored, in masks only: a new key,
 * the one it replaced, or the same key again. Two different keys may mask
 * alike (short ones all print as `****`), and that is said rather than shown
 * as a change from `****` to `****`.
 */
export function describeKeyChange(profile: string, previous: string | undefined, next: string): string | undefined {
  if (previous === undefined) return undefined;
  const [before, after] = [maskKey(previous), maskKey(next)];
  if (previous === next) return `the key for profile ${profile} is unchanged (${after})`;
  if (before === after) return `replaced the key ${before} with a different key, also shown as ${after}, for profile ${profile}`;
  return `replaced the key ${before} with ${after} for profile ${profile}`;
}

/** Said once, when a secret meant for the keychain went to config.json because no keychain answered. */
export function describeKeyPlace(configFile: string, what = 'the key'): string {
  return `no keychain available: ${what} is stored in ${configFile} (mode 0600)`;
}
