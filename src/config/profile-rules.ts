import { type PetctlError, UsageError } from '../errors';
import { SANDBOX_PROFILE } from './config-file';

/** What a profile's name and key must be, and the usage errors about choosing one. */

const PROFILE_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Throws UsageError unless `name` is 1..64 letters, digits, ".", "_" or "-". */
export function validateProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`invalid profile name ${JSON.stringify(name)}`, 'use 1 to 64 letters, digits, ".", "_" or "-"');
  }
  return name;
}

/**
 * Throws UsageError unless the key can go into an `Authorization: Bearer` header
 * as is: not empty, printable ASCII, no spaces. The key is never echoed.
 */
export function validateApiKey(key: string, label = 'the API key'): string {
  if (key === '') throw new UsageError(`${label} is empty`);
  if (/[^\x21-\x7e]/.test(key)) {
    throw new UsageError(`${label} contains spaces, control or non-ASCII characters`, 'check that only the key itself was pasted');
  }
  return key;
}

/**
 * Other profiles exist and none is chosen (see ProfileStore.activeName): a
 * usage error (exit 2) before anything is sent. `others` excludes the sandbox.
 */
export function noProfileChosen(others: readonly string[]): PetctlError {
  return new UsageError(
    `no profile chosen; petctl has profile${others.length === 1 ? '' : 's'} ${others.join(', ')}. Choose one with petctl profile use <name> or -p <name> (-p ${SANDBOX_PROFILE} for the built-in sandbox)`,
    { code: 'no_profile' },
  );
}

/** A profile name that names none: a usage error (exit 2) wherever it comes from. `from` says where, e.g. `PETCTL_PROFILE`. */
export function unknownProfile(name: string, known: readonly string[], from?: string): UsageError {
  return new UsageError(
    `unknown profile ${JSON.stringify(name)}${from === undefined ? '' : ` from ${from}`} (known: ${known.join(', ')})`,
    `add it with petctl profile add ${name} --base-url <url>`,
  );
}
