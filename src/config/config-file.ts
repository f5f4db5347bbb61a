import { AuthError, FailureError, type PetctlError, UsageError } from '../errors';
import { CorruptFileError } from '../locked-file';

/** The built-in profile: the embedded sandbox. */
export const SANDBOX_PROFILE = 'sandbox';

export interface KeychainRef {
  store: 'keychain';
  service: string;
  account: string;
}

/** The secret itself (config.json is mode 0600), or where in the keychain it is. */
export type StoredSecret = string | KeychainRef;

export function isKeychainRef(value: unknown): value is KeychainRef {
  const nonEmpty = (text: unknown) => typeof text === 'string' && text !== '';
  return isRecord(value) && value.store === 'keychain' && nonEmpty(value.service) && nonEmpty(value.account);
}

/** No keychain answered, or it refused: `reason` names no secret. */
export class KeychainUnavailableError extends AuthError {
  readonly reason: string;

  constructor(reason: string, hint?: string) {
    super(`the keychain is not available: ${reason}`, { code: 'keychain_unavailable', hint });
    this.reason = reason;
  }
}

export interface ProfileEntry {
  baseUrl?: string;
  apiKey?: StoredSecret;
  stateUrl?: string;
  statePassword?: StoredSecret;
}

export interface Snapshot {
  active?: string;
  profiles: Map<string, ProfileEntry>;
}

/** Profiles is a null-prototype object so any name is a plain key. */
export type ConfigDocument = Record<string, unknown> & { profiles: Record<string, unknown> };

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads what the store understands; malformed parts (a hand edit) are skipped rather than fatal. */
export function parseConfig(raw: unknown): Snapshot {
  const doc = isRecord(raw) ? raw : {};
  const profiles = new Map<string, ProfileEntry>();
  for (const [name, entry] of Object.entries(isRecord(doc.profiles) ? doc.profiles : {})) {
    if (!isRecord(entry)) continue;
    const builtIn = name === SANDBOX_PROFILE;
    profiles.set(name, {
      baseUrl: !builtIn && typeof entry.baseUrl === 'string' ? entry.baseUrl : undefined,
      apiKey: storedSecret(entry.apiKey),
      stateUrl: !builtIn && typeof entry.stateUrl === 'string' && entry.stateUrl !== '' ? entry.stateUrl : undefined,
      statePassword: builtIn ? undefined : storedSecret(entry.statePassword),
    });
  }
  const active = typeof doc.activeProfile === 'string' && doc.activeProfile !== '' ? doc.activeProfile : undefined;
  return { active, profiles };
}

export function storedSecret(value: unknown): StoredSecret | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  return isKeychainRef(value) ? { store: 'keychain', service: value.service, account: value.account } : undefined;
}

/** The sandbox first, then the others in order. */
export function profileNames(names: Iterable<string>): string[] {
  return [SANDBOX_PROFILE, ...[...names].filter((name) => name !== SANDBOX_PROFILE).sort()];
}

export function toDocument(raw: unknown): ConfigDocument {
  const doc: Record<string, unknown> = Object.assign(Object.create(null), isRecord(raw) ? raw : {});
  doc.profiles = Object.assign(Object.create(null), isRecord(doc.profiles) ? doc.profiles : {});
  return doc as ConfigDocument;
}

/** Written back whole, so a file that is not a JSON object is refused, not read as empty; undefined: no file yet. */
export function checkedConfig<T>(file: string, read: () => T): T {
  let value: T;
  try {
    value = read();
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof CorruptFileError) throw configDamaged(file, 'not valid JSON', error);
    throw error;
  }
  if (value !== undefined && !isRecord(value)) throw configDamaged(file, 'not a JSON object');
  return value;
}

/** config.json is not a JSON object: nothing reads or writes it until it is fixed, so the profiles and keys it holds survive. */
function configDamaged(file: string, reason: string, cause?: unknown): FailureError {
  return new FailureError(`the configuration file ${file} is damaged (${reason}); nothing was changed`, {
    code: 'config_damaged',
    hint: `fix it by hand, or move it away to start with no profiles (mv ${file} ${file}.damaged)`,
    cause,
  });
}

export function validateProfileName(name: string): string {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) {
    throw new UsageError(`invalid profile name ${JSON.stringify(name)}`, 'use 1 to 64 letters, digits, ".", "_" or "-"');
  }
  return name;
}

/** A key goes into an `Authorization: Bearer` header as it is. It is never echoed. */
export function validateApiKey(key: string, label = 'the API key'): string {
  if (key === '') throw new UsageError(`${label} is empty`);
  if (/[^\x21-\x7e]/.test(key)) {
    throw new UsageError(`${label} contains spaces, control or non-ASCII characters`, 'check that only the key itself was pasted');
  }
  return key;
}

/** `others` excludes the sandbox. */
export function noProfileChosen(others: readonly string[]): PetctlError {
  return new UsageError(
    `no profile chosen; petctl has profile${others.length === 1 ? '' : 's'} ${others.join(', ')}. Choose one with petctl profile use <name> or -p <name> (-p ${SANDBOX_PROFILE} for the built-in sandbox)`,
    { code: 'no_profile' },
  );
}

/** `from` says where the name came from, e.g. `PETCTL_PROFILE`. */
export function unknownProfile(name: string, known: readonly string[], from?: string): UsageError {
  return new UsageError(
    `unknown profile ${JSON.stringify(name)}${from === undefined ? '' : ` from ${from}`} (known: ${known.join(', ')})`,
    `add it with petctl profile add ${name} --base-url <url>`,
  );
}
