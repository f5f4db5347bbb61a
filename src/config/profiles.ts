import type Conf from 'conf';
import { UsageError } from '../errors';
import { assertOwnFile } from '../file-safety';
import { validateBaseUrl } from './url-check';
import { ensurePrivateDir, withFileLock, writeFileAtomic } from '../locked-file';
import type { PetctlPaths } from './paths';
import { checkConfigFiles } from './permissions';
import { type ConfigDocument, SANDBOX_PROFILE, checkedConfig, readConfigFile, readStore, type Snapshot, type StateStoreSettings, type StoredSecret, type KeychainRef, isKeychainRef, byName, entryOf, knownNames, parseConfig, profileExists, stateSettings, toDocument } from './config-file';
import { type KeySet, SecretPlaces, type SecretPlacement, type SecretStorage, type StoreOptions, storageOf } from './secret-places';

export { type KeySet, type SecretPlacement, type SecretStorage, type StoreOptions, storageOf } from './secret-places';
import { unknownProfile, validateApiKey, validateProfileName } from './profile-rules';

export { noProfileChosen, unknownProfile, validateApiKey, validateProfileName } from './profile-rules';

/**
 * The profile store: named API endpoints, each with its own key, in
 * `<config dir>/config.json` (mode 0600, directory 0700), written through conf.
 *
 * Stored shape:
 *
 *   {
 *     "activeProfile"?: string,            // absent: none chosen (see activeName)
 *     "profiles": {
 *       "<name>": { "baseUrl": string, "apiKey"?: Secret, "stateUrl"?: string, "statePassword"?: Secret },
 *       "sandbox"?: { "apiKey"?: Secret }  // the built-in profile only ever stores a key
 *     }
 *   }
 *   Secret: the secret itself, or where the keychain keeps it:
 *           { "store": "keychain", "service": "petctl", "account": "<profile>/<random>" }
 *
 * Secrets go to the keychain when one answers (config/keychain.ts) and to this
 * file otherwise, or when the caller asks for the file (--insecure-storage).
 * The keychain is written before the file and cleared before the file forgets
 * its reference, so a failure leaves no entry that nothing points to.
 *
 * Keys the store does not know (top level or inside a profile) are kept as they
 * are when it writes, so a newer petctl's additions survive an older one.
 *
 * Concurrency: conf rewrites the whole file on every write and has no lock, so
 * every change runs inside withFileLock(config.json) and re-reads the file
 * there (conf's `store` getter reads the file on each access) before writing:
 * two processes changing profiles at once both keep their change.
 *
 * Cost: importing conf loads ajv, ajv-formats and semver (docs/performance.md), and every
 * command opens this store. So reading is a plain read of the same JSON file (atomic renames
 * mean it is always a whole file), and conf is imported only when something is written. A
 * read-only command on a fresh install creates nothing, not even the directory.
 */

export { SANDBOX_PROFILE };
/** The key the embedded sandbox accepts out of the box; used when the sandbox profile stores none. */
export const SANDBOX_DEFAULT_KEY = 'sandbox-free';

export interface StoredProfile {
  name: string;
  /** Absent for the built-in sandbox (the in-process service) and for a hand-edited entry without one. */
  baseUrl?: string;
  /** The key as config.json holds it: the key itself, or its place in the keychain. */
  apiKey?: StoredSecret;
  /** The shared rate-limit state store (redis://…); it may hold a password. */
  stateUrl?: string;
  /** The state store's password, kept apart from the URL (--state-password-stdin), or its place in the keychain. */
  statePassword?: StoredSecret;
  builtIn: boolean;
}

export interface ProfileStore {
  /** The config file (it may not exist yet). */
  readonly path: string;
  /**
   * The profile commands use when none is named: the one chosen with `profile
   * use`, or the sandbox while no other profile exists (a fresh install).
   * Undefined when other profiles exist and none is chosen: a request must not
   * go to the sandbox while the user may think it goes to production. It may
   * name a profile removed by hand.
   */
  activeName(): string | undefined;
  get(name: string): StoredProfile | undefined;
  /** The sandbox first, then the others by name. */
  list(): StoredProfile[];
  /** Adds a profile without a key; refuses an existing name and the sandbox. `useIfFirst`: the first besides the sandbox, while none is chosen, becomes the active one (else what used the sandbox a minute ago stops with no_profile). */
  add(name: string, baseUrl: string, state?: StateStoreSettings, options?: { useIfFirst?: boolean }): Promise<ProfileAdded>;
  /** Changes a profile's base URL and/or state store, keeping its key; refuses the sandbox and an unknown name. */
  update(name: string, changes: { baseUrl?: string } & StateStoreSettings): Promise<SecretPlacement | undefined>;
  use(name: string): Promise<void>;
  /** Removing the chosen profile leaves none chosen (see activeName); its secrets leave the keychain first. */
  remove(name: string): Promise<void>;
  /** Where the key went, and what became of the key it replaced. */
  setKey(name: string, key: string, options?: StoreOptions): Promise<KeySet>;
  /** Where the removed key was kept; undefined when there was none. */
  clearKey(name: string): Promise<SecretStorage | undefined>;
  /** The secret a keychain reference points to (undefined: the keychain has none). */
  readSecret(ref: KeychainRef): Promise<string | undefined>;
}

export type { StateStoreSettings };

/** `password`: where the state store's password went, when one was given; `nowActive`: the profile is the active one now (useIfFirst). */
export type ProfileAdded = { password?: SecretPlacement; nowActive: boolean };

/** `env`: the environment the keychain is reached through (D-Bus's address on Linux). */
export async function openProfileStore(paths: PetctlPaths, env: Readonly<NodeJS.ProcessEnv> = {}, warn?: (message: string) => void): Promise<ProfileStore> {
  if (warn) checkConfigFiles(paths, warn);
  return new ConfProfileStore(paths, parseConfig(readConfigFile(paths.configFile)), env);
}

class ConfProfileStore implements ProfileStore {
  readonly path: string;
  #paths: PetctlPaths;
  #snapshot: Snapshot;
  #conf?: Conf<ConfigDocument>;
  #secrets: SecretPlaces;

  constructor(paths: PetctlPaths, snapshot: Snapshot, env: Readonly<NodeJS.ProcessEnv>) {
    this.#paths = paths;
    this.path = paths.configFile;
    this.#snapshot = snapshot;
    this.#secrets = new SecretPlaces(env);
  }

  async readSecret(ref: KeychainRef): Promise<string | undefined> {
    return this.#secrets.read(ref);
  }

  /** A secret just written to the keychain for a change that did not happen goes again. */
  async #changeWithSecret(stored: StoredSecret | undefined, change: (doc: ConfigDocument) => void): Promise<void> {
    try {
      await this.#change(change);
    } catch (error) {
      await this.#secrets.forget([stored], false);
      throw error;
    }
  }

  activeName(): string | undefined {
    if (this.#snapshot.active !== undefined) return this.#snapshot.active;
    const others = [...this.#snapshot.profiles.keys()].some((name) => name !== SANDBOX_PROFILE);
    return others ? undefined : SANDBOX_PROFILE;
  }

  get(name: string): StoredProfile | undefined {
    const entry = this.#snapshot.profiles.get(name);
    if (name === SANDBOX_PROFILE) return { name, apiKey: entry?.apiKey, builtIn: true };
    if (!entry) return undefined;
    return { name, baseUrl: entry.baseUrl, apiKey: entry.apiKey, stateUrl: entry.stateUrl, statePassword: entry.statePassword, builtIn: false };
  }

  list(): StoredProfile[] {
    const names = [...this.#snapshot.profiles.keys()].filter((name) => name !== SANDBOX_PROFILE).sort(byName);
    return [SANDBOX_PROFILE, ...names].map((name) => this.get(name) as StoredProfile);
  }

  async add(name: string, baseUrl: string, settings: StateStoreSettings = {}, options: { useIfFirst?: boolean } = {}): Promise<ProfileAdded> {
    if (name === SANDBOX_PROFILE) {
      throw new UsageError(`"${SANDBOX_PROFILE}" is the built-in profile and cannot be added or replaced`, 'choose another name');
    }
    validateProfileName(name);
    const url = validateBaseUrl(baseUrl, '--base-url');
    stateSettings({ stateUrl: settings.stateUrl });
    const exists = () => new UsageError(`profile ${JSON.stringify(name)} already exists`, `to change it and keep its key, run petctl profile set ${name} --base-url <url>`);
    // Checked before a password goes to the keychain, and again under the lock.
    if (this.#snapshot.profiles.has(name)) throw exists();
    const password = settings.statePassword === undefined ? undefined : await this.#secrets.place(name, settings.statePassword);
    const state = stateSettings({ stateUrl: settings.stateUrl, statePassword: password?.stored });
    await this.#changeWithSecret(password?.stored, (doc) => {
      if (profileExists(doc, name)) throw exists();
      if (options.useIfFirst && parseConfig(doc).active === undefined && knownNames(doc).length === 1) doc.activeProfile = name;
      doc.profiles[name] = { baseUrl: url, ...state };
    });
    return { password: password && { storage: password.storage, keychainFailure: password.keychainFailure }, nowActive: this.#snapshot.active === name };
  }

  async update(name: string, changes: { baseUrl?: string } & StateStoreSettings): Promise<SecretPlacement | undefined> {
    if (name === SANDBOX_PROFILE) {
      throw new UsageError(`the built-in "${SANDBOX_PROFILE}" profile has no base URL or state URL to change`, 'point a command elsewhere with --base-url, or add a profile');
    }
    const url = changes.baseUrl === undefined ? undefined : validateBaseUrl(changes.baseUrl, '--base-url');
    stateSettings({ stateUrl: changes.stateUrl });
    if (!this.#snapshot.profiles.has(name)) throw unknownProfile(name, this.list().map((profile) => profile.name));
    const password = changes.statePassword === undefined ? undefined : await this.#secrets.place(name, changes.statePassword);
    const state = stateSettings({ stateUrl: changes.stateUrl, statePassword: password?.stored });
    let replaced: unknown;
    await this.#changeWithSecret(password?.stored, (doc) => {
      const entry = entryOf(doc, name);
      if (entry === undefined) throw unknownProfile(name, knownNames(doc));
      if (password) replaced = entry.statePassword;
      // Everything else the entry holds (the key above all) stays as it is.
      doc.profiles[name] = { ...entry, ...(url === undefined ? {} : { baseUrl: url }), ...state };
    });
    await this.#secrets.forget([replaced as StoredSecret | undefined], false);
    return password && { storage: password.storage, keychainFailure: password.keychainFailure };
  }

  async use(name: string): Promise<void> {
    await this.#change((doc) => {
      if (!profileExists(doc, name)) throw unknownProfile(name, knownNames(doc));
      doc.activeProfile = name;
    });
  }

  async remove(name: string): Promise<void> {
    if (name === SANDBOX_PROFILE) {
      throw new UsageError(`the built-in "${SANDBOX_PROFILE}" profile cannot be removed`, `to forget its key, run petctl auth logout -p ${SANDBOX_PROFILE}`);
    }
    const entry = this.#snapshot.profiles.get(name);
    if (entry === undefined) throw unknownProfile(name, this.list().map((profile) => profile.name));
    // A keychain that cannot delete the secrets keeps the profile, so its references are not lost.
    await this.#secrets.forget([entry.apiKey, entry.statePassword], true);
    await this.#change((doc) => {
      if (!profileExists(doc, name)) throw unknownProfile(name, knownNames(doc));
      delete doc.profiles[name];
      // Falling back to the sandbox would send the next command there without a word.
      if (doc.activeProfile === name) delete doc.activeProfile;
    });
  }

  // What the key replaces is read under the same lock as the write, so what auth login says is what happened.
  async setKey(name: string, key: string, options: StoreOptions = {}): Promise<KeySet> {
    validateApiKey(key);
    if (!this.#snapshot.profiles.has(name) && name !== SANDBOX_PROFILE) throw unknownProfile(name, this.list().map((profile) => profile.name));
    const placed = await this.#secrets.place(name, key, options);
    let replaced: unknown;
    await this.#changeWithSecret(placed.stored, (doc) => {
      if (!profileExists(doc, name)) throw unknownProfile(name, knownNames(doc));
      replaced = entryOf(doc, name)?.apiKey;
      doc.profiles[name] = { ...entryOf(doc, name), apiKey: placed.stored };
    });
    const placement = { storage: placed.storage, keychainFailure: placed.keychainFailure };
    // A key kept in the file before is gone with the write above; one in the keychain goes too, wherever the new one went.
    if (typeof replaced === 'string' && replaced !== '') return { ...placement, replaced: true, previous: replaced };
    return isKeychainRef(replaced) ? { ...placement, replaced: true, ...(await this.#secrets.retire(replaced)) } : { ...placement, replaced: false };
  }

  async clearKey(name: string): Promise<SecretStorage | undefined> {
    const stored = this.#snapshot.profiles.get(name)?.apiKey;
    // Out of the keychain first: a keychain that does not answer keeps the reference, and says so.
    await this.#secrets.forget([stored], true);
    let removed: StoredSecret | undefined;
    await this.#change((doc) => {
      if (!profileExists(doc, name)) throw unknownProfile(name, knownNames(doc));
      const entry = entryOf(doc, name);
      if (entry === undefined || !Object.hasOwn(entry, 'apiKey')) return;
      const { apiKey, ...rest } = entry;
      removed = parseConfig({ profiles: { [name]: { apiKey } } }).profiles.get(name)?.apiKey;
      // The sandbox's entry exists only to hold a key.
      if (name === SANDBOX_PROFILE && Object.keys(rest).length === 0) delete doc.profiles[name];
      else doc.profiles[name] = rest;
    });
    // Stored by another process since this one read the file: it goes too.
    if (isKeychainRef(removed) && (!isKeychainRef(stored) || removed.account !== stored.account)) await this.#secrets.forget([removed], false);
    return storageOf(removed);
  }

  /**
   * Locked read-modify-write. `change` sees the file as it is now (not as it
   * was when the store was opened) and may throw to abort; nothing is written
   * when it changes nothing.
   */
  async #change(change: (doc: ConfigDocument) => void): Promise<void> {
    const file = this.#paths.configFile;
    await withFileLock(file, async () => {
      // What is read here is written back, keys and all: it must be the user's own file.
      assertOwnFile(file);
      const conf = await this.#openConf();
      const doc = toDocument(readStore(conf, file));
      const before = JSON.stringify(doc);
      change(doc);
      if (JSON.stringify(doc) !== before) conf.store = doc;
      this.#snapshot = parseConfig(doc);
    });
  }

  async #openConf(): Promise<Conf<ConfigDocument>> {
    if (this.#conf) return this.#conf;
    // conf would create the directory with the umask's mode (usually 0755).
    ensurePrivateDir(this.#paths.dir);
    const { default: ConfClass } = await import('conf');
    // The constructor reads the file; without defaults or migrations it never writes.
    const conf = checkedConfig(this.#paths.configFile, () => new ConfClass<ConfigDocument>({
      cwd: this.#paths.dir,
      configName: 'config',
      fileExtension: 'json',
      configFileMode: 0o600,
      // Profile names may contain dots.
      accessPropertiesByDotNotation: false,
      // Throw on a damaged file instead of silently replacing it with an empty config.
      clearInvalidConfig: false,
    }));
    // The lock is taken on paths.configFile: conf must be writing that very file.
    if (conf.path !== this.#paths.configFile) throw new Error(`conf writes ${conf.path}, expected ${this.#paths.configFile}`);
    // conf writes through `atomically`, which follows a symlink at the file, keeps an existing file's
    // owner and opens its temporary without O_EXCL: its writes go through petctl's own writer instead.
    const internals = conf as unknown as { _write(value: unknown): void; _serialize(value: unknown): string };
    internals._write = (value) => writeFileAtomic(conf.path, internals._serialize(value));
    this.#conf = conf;
    return conf;
  }
}
