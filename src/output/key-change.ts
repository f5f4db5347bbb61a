import type { KeySet } from '../config/profiles';
import { maskKey } from '../config/target';

/**
 * What `auth login` says about the key it stored, in masks only: a new key,
 * the one it replaced, or the same key again. Two different keys may mask
 * alike (short ones all print as `****`), and that is said rather than shown
 * as a change from `****` to `****`. A replaced key in a keychain that could
 * not be read is said to be replaced all the same.
 */
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

/** The replaced key is still in the keychain: where, so that it can be deleted by hand. */
export function describeKeyLeftBehind(left: NonNullable<KeySet['leftBehind']>): string {
  return `the old key could not be removed from the keychain (${left.reason}); it is still there as service ${left.ref.service}, account ${left.ref.account}`;
}

/** Said once, when a secret meant for the keychain went to config.json because no keychain answered. */
export function describeKeyPlace(configFile: string, what = 'the key'): string {
  return `no keychain available: ${what} is stored in ${configFile} (mode 0600)`;
}
