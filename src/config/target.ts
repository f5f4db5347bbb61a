import { NotConfiguredError, PetctlError, UsageError } from '../errors';
import { validateBaseUrl } from './url-check';
import { type KeychainRef, KeychainUnavailableError, type StoredSecret, isKeychainRef, noProfileChosen, unknownProfile, validateApiKey } from './config-file';
import { stateStoreAddress, validateStateUrl } from './state-url';
import { type ProfileStore, type StoredProfile, SANDBOX_DEFAULT_KEY } from './profiles';
import { type SecretStorage, storageOf } from './keychain';

type ProfileReader = Pick<ProfileStore, 'activeName' | 'get' | 'list'>;

/** 'none': no profile is used; the environment names the whole target. */
type ProfileSource = 'flag' | 'env' | 'active' | 'none';
type BaseUrlSource = 'flag' | 'env' | 'profile' | 'sandbox';
type KeySource = 'env' | 'profile' | 'sandbox-default';
type StateUrlSource = 'env' | 'profile';
export type StatePasswordSource = 'env' | 'profile' | 'url';

/** A command's profile, base URL, key and state store, and where each came from (docs/configuration.md#environment). */
export interface ResolvedTarget {
  /** Undefined when no profile is used (profileSource 'none'). */
  profile?: string;
  profileSource: ProfileSource;
  /** The store's, which -p or PETCTL_PROFILE may override; undefined when none is chosen. */
  activeProfile?: string;
  /** Normalised; undefined: the embedded sandbox started in-process. */
  baseUrl?: string;
  baseUrlSource: BaseUrlSource;
  apiKey?: string;
  keySource?: KeySource;
  /** Where the profile's own key is stored, even when PETCTL_API_KEY overrides it. */
  keyStorage?: SecretStorage;
  /** A key or password in use that is in the keychain and not read yet. */
  keyRef?: KeychainRef;
  statePasswordRef?: KeychainRef;
  /** Why the keychain could not give the key: requireKey throws it, so only commands that send stop. */
  keyProblem?: PetctlError;
  /** The shared rate-limit state store (it may hold a password); undefined: this machine's state file. */
  stateUrl?: string;
  stateUrlSource?: StateUrlSource;
  statePassword?: string;
  statePasswordSource?: StatePasswordSource;
  /** Rate-limit state and import records are kept under it: the base URL, or the sandbox's data file (its port moves). */
  identity: string;
}

interface ResolveOptions {
  profileFlag?: string;
  env: Readonly<NodeJS.ProcessEnv>;
}

interface TargetOptions extends ResolveOptions {
  baseUrlFlag?: string;
  sandboxDataFile: string;
}

/** An empty variable counts as unset. */
function fromEnv(env: Readonly<NodeJS.ProcessEnv>, name: string): string | undefined {
  return env[name] || undefined;
}

export function resolveProfileName(store: ProfileReader, options: ResolveOptions): { name: string; source: ProfileSource } {
  if (options.profileFlag === '') throw new UsageError('--profile needs a profile name', 'petctl profile list');
  const envProfile = fromEnv(options.env, 'PETCTL_PROFILE');
  const [name, source, from] =
    options.profileFlag !== undefined
      ? ([options.profileFlag, 'flag', '--profile'] as const)
      : envProfile !== undefined
        ? ([envProfile, 'env', 'PETCTL_PROFILE'] as const)
        : ([store.activeName(), 'active', 'the active profile'] as const);
  if (name === undefined) throw noProfileChosen(store.list().filter((profile) => !profile.builtIn).map((profile) => profile.name));
  if (store.get(name) === undefined) throw unknownProfile(name, store.list().map((profile) => profile.name), from);
  return { name, source };
}

/** No profile named by -p or PETCTL_PROFILE, none chosen, and the environment gives both a base URL and a key. */
function environmentOnly(store: ProfileReader, options: TargetOptions): boolean {
  const given = (name: string) => fromEnv(options.env, name) !== undefined;
  return options.profileFlag === undefined && !given('PETCTL_PROFILE') && store.activeName() === undefined
    && (options.baseUrlFlag !== undefined || given('PETCTL_BASE_URL')) && given('PETCTL_API_KEY');
}

/** A profile that stores nothing: what the environment alone gives. */
const NO_PROFILE: StoredProfile = { name: '', builtIn: false };

export function resolveTarget(store: ProfileReader, options: TargetOptions): ResolvedTarget {
  const { name, source } = environmentOnly(store, options) ? { name: undefined, source: 'none' as const } : resolveProfileName(store, options);
  // Without a profile the environment gives the base URL and the key, so `name!` below is never read.
  const profile = name === undefined ? NO_PROFILE : store.get(name)!;

  const base = firstGiven<BaseUrlSource>([
    ['flag', options.baseUrlFlag, (raw) => validateBaseUrl(raw, '--base-url')],
    ['env', fromEnv(options.env, 'PETCTL_BASE_URL'), (raw) => validateBaseUrl(raw, 'PETCTL_BASE_URL')],
    ['sandbox', profile.builtIn ? 'in-process' : undefined, () => undefined],
    ['profile', '', () => storedBaseUrl(name!, profile.baseUrl)],
  ]);
  const key = firstGiven<KeySource>([
    ['env', fromEnv(options.env, 'PETCTL_API_KEY'), (raw) => validateApiKey(raw, 'PETCTL_API_KEY')],
    ['profile', inFile(profile.apiKey), (raw) => (raw === IN_KEYCHAIN ? undefined : storedKey(name!, raw, store.activeName()))],
    ['sandbox-default', profile.builtIn ? SANDBOX_DEFAULT_KEY : undefined, (raw) => raw],
  ]);
  const state = firstGiven<StateUrlSource>([
    ['env', fromEnv(options.env, 'PETCTL_STATE_URL'), (raw) => validateStateUrl(raw, 'PETCTL_STATE_URL')],
    [
      'profile',
      profile.stateUrl,
      (raw) => stored(() => validateStateUrl(raw, `the state URL of profile ${JSON.stringify(name)}`), `petctl profile set ${name} --state-url <url>`),
    ],
  ]);
  // A stored password belongs to the profile's own server, never to one PETCTL_STATE_URL names.
  const password = state.value === undefined ? {} : firstGiven<StatePasswordSource>([
    ['env', fromEnv(options.env, 'PETCTL_STATE_PASSWORD'), (raw) => raw],
    ['profile', state.source === 'profile' ? inFile(profile.statePassword) : undefined, (raw) => (raw === IN_KEYCHAIN ? undefined : raw)],
    ['url', stateStoreAddress(state.value).password, (raw) => raw],
  ]);

  return {
    profile: name,
    profileSource: source,
    activeProfile: store.activeName(),
    baseUrl: base.value,
    baseUrlSource: base.source!,
    apiKey: key.value,
    keySource: key.source,
    keyStorage: storageOf(profile.apiKey),
    keyRef: key.source === 'profile' && isKeychainRef(profile.apiKey) ? profile.apiKey : undefined,
    statePasswordRef: password.source === 'profile' && isKeychainRef(profile.statePassword) ? profile.statePassword : undefined,
    stateUrl: state.value,
    stateUrlSource: state.source,
    statePassword: password.value,
    statePasswordSource: password.source,
    identity: base.value ?? `sandbox:${options.sandboxDataFile}`,
  };
}

/** Stands for a secret kept in the keychain: config.json never holds an empty one (config-file.ts drops them). */
const IN_KEYCHAIN = '';

function inFile(secret: StoredSecret | undefined): string | undefined {
  return secret === undefined || typeof secret === 'string' ? secret : IN_KEYCHAIN;
}

/** A key the keychain cannot give stops only the commands that send it (requireKey); a password, any command. */
export async function readTargetSecrets(target: ResolvedTarget, store: Pick<ProfileStore, 'readSecret'>): Promise<ResolvedTarget> {
  const done: ResolvedTarget = { ...target, keyRef: undefined, statePasswordRef: undefined };
  if (target.statePasswordRef) done.statePassword = await store.readSecret(target.statePasswordRef);
  if (!target.keyRef) return done;
  const apiKey = await store.readSecret(target.keyRef).catch((error: unknown) => {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    return new KeychainUnavailableError(error.reason, 'is the keyring unlocked in this session? PETCTL_API_KEY overrides the stored key');
  });
  const profile = target.profile!;
  if (typeof apiKey === 'string') return { ...done, apiKey: storedKey(profile, apiKey, target.activeProfile) };
  if (apiKey) return { ...done, keyProblem: apiKey };
  return { ...done, keyProblem: new NotConfiguredError(`the API key of profile "${profile}" is no longer in the keychain`, loginHint(profile, target.activeProfile)) };
}

/** Each setting is taken from the first place that gives it; `read` checks the value it is given. */
function firstGiven<S extends string>(
  candidates: ReadonlyArray<readonly [source: S, raw: string | undefined, read: (raw: string) => string | undefined]>,
): { value?: string; source?: S } {
  for (const [source, raw, read] of candidates) if (raw !== undefined) return { value: read(raw), source };
  return {};
}

/** A value config.json holds was checked when stored, but the file may have been edited since. */
function stored(check: () => string, fix: string): string {
  try {
    return check();
  } catch (error) {
    if (error instanceof PetctlError) throw new NotConfiguredError(error.message, fix);
    throw error;
  }
}

function storedBaseUrl(name: string, raw: string | undefined): string {
  const fix = `petctl profile set ${name} --base-url <url>`;
  if (raw === undefined) throw new NotConfiguredError(`profile ${JSON.stringify(name)} has no base URL`, fix);
  return stored(() => validateBaseUrl(raw, `the base URL of profile ${JSON.stringify(name)}`), fix);
}

function storedKey(name: string, key: string, active: string | undefined): string {
  return stored(() => validateApiKey(key, `the API key stored in profile ${JSON.stringify(name)}`), loginHint(name, active));
}

function loginHint(name: string, active: string | undefined): string {
  return `run petctl auth login${name !== active ? ` -p ${name}` : ''}`;
}

/** For a 401. */
export function rejectedKeyHint(target: ResolvedTarget): string {
  if (target.keySource === 'env') return `PETCTL_API_KEY was rejected; check its value${target.profile === undefined ? '' : ' or unset it to use the stored key'}`;
  return loginHint(target.profile!, target.activeProfile);
}

export function requireKey(target: ResolvedTarget): string {
  if (target.apiKey !== undefined) return target.apiKey;
  if (target.keyProblem) throw target.keyProblem;
  const profile = target.profile!;
  throw new NotConfiguredError(`no API key for profile "${profile}"`, loginHint(profile, target.activeProfile));
}

/** `****` and the last 4 of a key of 10 or more (enough to tell two apart), else `****` alone; never the length. */
export function maskKey(key: string): string {
  const chars = [...key];
  return chars.length >= 10 ? `****${chars.slice(-4).join('')}` : '****';
}
