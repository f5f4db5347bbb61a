import { NotConfiguredError, PetctlError, UsageError } from '../errors';
import { validateBaseUrl } from './base-url';
import { validateStateUrl } from './state-url';
import { type ProfileStore, SANDBOX_DEFAULT_KEY, SANDBOX_PROFILE, validateApiKey } from './profiles';

/**
 * Which profile, base URL and key a command uses, and where each came from.
 * Pure functions over the store and the environment; nothing here does I/O.
 *
 *   profile:  -p/--profile  >  PETCTL_PROFILE  >  the active profile
 *   base URL: --base-url    >  PETCTL_BASE_URL >  the profile's  >  (sandbox) the in-process service
 *   key:      PETCTL_API_KEY > the profile's stored key > (sandbox) SANDBOX_DEFAULT_KEY
 *   state:    PETCTL_STATE_URL > the profile's state URL > none (this machine's state file)
 *
 * A key is never taken from a flag: flags end up in shell history and in `ps`.
 * Empty environment variables count as unset (`PETCTL_PROFILE= petctl ...`).
 */

export type ProfileReader = Pick<ProfileStore, 'activeName' | 'get' | 'list'>;

export type ProfileSource = 'flag' | 'env' | 'active';
export type BaseUrlSource = 'flag' | 'env' | 'profile' | 'sandbox';
export type KeySource = 'env' | 'profile' | 'sandbox-default';
export type StateUrlSource = 'env' | 'profile';

export interface ResolvedProfile {
  name: string;
  source: ProfileSource;
}

export interface ResolvedTarget {
  profile: string;
  profileSource: ProfileSource;
  /** The store's active profile, which `profile` may differ from (-p, PETCTL_PROFILE). */
  activeProfile: string;
  /** Normalised; undefined means the embedded sandbox started in-process. */
  baseUrl?: string;
  baseUrlSource: BaseUrlSource;
  apiKey?: string;
  keySource?: KeySource;
  /** The profile stores a key of its own, whether or not PETCTL_API_KEY overrides it. */
  hasStoredKey: boolean;
  /** The shared rate-limit state store (it may hold a password); undefined: this machine's state file. */
  stateUrl?: string;
  stateUrlSource?: StateUrlSource;
}

export interface ResolveOptions {
  profileFlag?: string;
  env: Readonly<NodeJS.ProcessEnv>;
}

export interface TargetOptions extends ResolveOptions {
  baseUrlFlag?: string;
}

function fromEnv(env: Readonly<NodeJS.ProcessEnv>, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function resolveProfileName(store: ProfileReader, options: ResolveOptions): ResolvedProfile {
  let name: string;
  let source: ProfileSource;
  const envProfile = fromEnv(options.env, 'PETCTL_PROFILE');
  if (options.profileFlag !== undefined) {
    if (options.profileFlag === '') throw new UsageError('--profile needs a profile name', 'petctl profile list');
    name = options.profileFlag;
    source = 'flag';
  } else if (envProfile !== undefined) {
    name = envProfile;
    source = 'env';
  } else {
    name = store.activeName();
    source = 'active';
  }

  if (store.get(name) === undefined) {
    const from = source === 'flag' ? '--profile' : source === 'env' ? 'PETCTL_PROFILE' : 'the active profile';
    const known = store.list().map((profile) => profile.name);
    throw new NotConfiguredError(`profile ${JSON.stringify(name)} (from ${from}) does not exist; known profiles: ${known.join(', ')}`, 'petctl profile list');
  }
  return { name, source };
}

export function resolveTarget(store: ProfileReader, options: TargetOptions): ResolvedTarget {
  const { name, source } = resolveProfileName(store, options);
  // resolveProfileName has checked that it exists.
  const profile = store.get(name)!;

  let baseUrl: string | undefined;
  let baseUrlSource: BaseUrlSource;
  const envBaseUrl = fromEnv(options.env, 'PETCTL_BASE_URL');
  if (options.baseUrlFlag !== undefined) {
    baseUrl = validateBaseUrl(options.baseUrlFlag, '--base-url');
    baseUrlSource = 'flag';
  } else if (envBaseUrl !== undefined) {
    baseUrl = validateBaseUrl(envBaseUrl, 'PETCTL_BASE_URL');
    baseUrlSource = 'env';
  } else if (profile.builtIn) {
    baseUrl = undefined;
    baseUrlSource = 'sandbox';
  } else {
    baseUrl = storedBaseUrl(name, profile.baseUrl);
    baseUrlSource = 'profile';
  }

  let apiKey: string | undefined;
  let keySource: KeySource | undefined;
  const envKey = fromEnv(options.env, 'PETCTL_API_KEY');
  if (envKey !== undefined) {
    apiKey = validateApiKey(envKey, 'PETCTL_API_KEY');
    keySource = 'env';
  } else if (profile.apiKey !== undefined) {
    apiKey = storedKey(name, profile.apiKey, store.activeName());
    keySource = 'profile';
  } else if (profile.builtIn) {
    apiKey = SANDBOX_DEFAULT_KEY;
    keySource = 'sandbox-default';
  }

  let stateUrl: string | undefined;
  let stateUrlSource: StateUrlSource | undefined;
  const envStateUrl = fromEnv(options.env, 'PETCTL_STATE_URL');
  if (envStateUrl !== undefined) {
    stateUrl = validateStateUrl(envStateUrl, 'PETCTL_STATE_URL');
    stateUrlSource = 'env';
  } else if (profile.stateUrl !== undefined) {
    stateUrl = storedStateUrl(name, profile.stateUrl);
    stateUrlSource = 'profile';
  }

  return {
    profile: name,
    profileSource: source,
    activeProfile: store.activeName(),
    baseUrl,
    baseUrlSource,
    apiKey,
    keySource,
    hasStoredKey: profile.apiKey !== undefined,
    stateUrl,
    stateUrlSource,
  };
}

function storedStateUrl(name: string, raw: string): string {
  try {
    return validateStateUrl(raw, `the state URL of profile ${JSON.stringify(name)}`);
  } catch (error) {
    if (error instanceof PetctlError) {
      throw new NotConfiguredError(error.message, `petctl profile remove ${name}, then petctl profile add ${name} --base-url <url> --state-url <url>`);
    }
    throw error;
  }
}

/** A base URL read from the config file was checked when added, but the file may have been edited since. */
function storedBaseUrl(name: string, raw: string | undefined): string {
  const fix = `petctl profile remove ${name}, then petctl profile add ${name} --base-url <url>`;
  if (raw === undefined) throw new NotConfiguredError(`profile ${JSON.stringify(name)} has no base URL`, fix);
  try {
    return validateBaseUrl(raw, `the base URL of profile ${JSON.stringify(name)}`);
  } catch (error) {
    if (error instanceof PetctlError) throw new NotConfiguredError(error.message, fix);
    throw error;
  }
}

function storedKey(name: string, key: string, active: string): string {
  try {
    return validateApiKey(key, `the API key stored in profile ${JSON.stringify(name)}`);
  } catch (error) {
    if (error instanceof PetctlError) throw new NotConfiguredError(error.message, loginHint(name, active));
    throw error;
  }
}

function loginHint(name: string, active: string): string {
  return `run petctl auth login${name !== active ? ` -p ${name}` : ''}`;
}

/**
 * Which service a target is, for everything petctl remembers about it (the
 * rate-limit state, import records): its base URL, or for the built-in sandbox
 * profile, which gets a new port every run, its data file.
 */
export function targetIdentity(target: Pick<ResolvedTarget, 'baseUrl'>, sandboxDataFile: string): string {
  return target.baseUrl ?? `sandbox:${sandboxDataFile}`;
}

/** What to tell the user when the server rejects the key in use (401). */
export function rejectedKeyHint(target: ResolvedTarget): string {
  if (target.keySource === 'env') return 'PETCTL_API_KEY was rejected; check its value or unset it to use the stored key';
  return loginHint(target.profile, target.activeProfile);
}

/**
 * The key to send, or NotConfiguredError (exit 4) telling how to store one.
 * `store` is optional: the target already knows the active profile.
 */
export function requireKey(target: ResolvedTarget, store?: Pick<ProfileStore, 'activeName'>): string {
  if (target.apiKey !== undefined) return target.apiKey;
  const active = store?.activeName() ?? target.activeProfile;
  throw new NotConfiguredError(`no API key for profile "${target.profile}"`, loginHint(target.profile, active));
}

/**
 * What `auth status` and `profile show` print instead of a key. It never shows
 * more than a quarter of the key and at most its last 4 characters: keys of 16
 * characters or more print as `****` + last 4, shorter ones as `****`. The
 * number of stars is fixed, so the key's length is not revealed either.
 */
export function maskKey(key: string): string {
  const chars = [...key];
  return chars.length >= 16 ? `****${chars.slice(-4).join('')}` : '****';
}
