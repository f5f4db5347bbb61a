import type Conf from 'conf';
import { UsageError } from '../errors';
import { assertOwnFile } from '../file-safety';
import { ensurePrivateDir, readJsonFile, withFileLock, writeFileAtomic } from '../locked-file';
import type { PetctlPaths } from './paths';
import { checkConfigFiles } from './permissions';
import { type ConfigDocument, type KeychainRef, type ProfileEntry, SANDBOX_PROFILE, type Snapshot, type StoredSecret, checkedConfig, isKeychainRef, isRecord, parseConfig, profileNames, storedSecret, toDocument, unknownProfile, validateApiKey, validateProfileName } from './config-file';
import { type KeySet, type SecretPlacement, type SecretStorage, type StoreOptions, askKeychain, forgetSecrets, placeSecret, retireSecret, storageOf } from './keychain';
import { validateStateUrl } from './state-url';
import { validateBaseUrl } from './url-check';

/** Used when the sandbox profile stores no key. */
export const SANDBOX_DEFAULT_KEY = 'sandbox-free';

/** No baseUrl: the built-in sandbox, or a hand-edited entry without one. */
export interface StoredProfile extends ProfileEntry {
  name: string;
  builtIn: boolean;
}

interface StateStoreSettings {
  stateUrl?: string;
  statePassword?: string;
}

/** `env`: the environment the keychain is reached through (D-Bus's address on Linux). */
export async function openProfileStore(paths: PetctlPaths, env: Readonly<NodeJS.ProcessEnv> = {}, warn?: (message: string) => void): Promise<ProfileStore> {
  if (warn) checkConfigFiles(paths, warn);
  return new ProfileStore(paths, parseConfig(checkedConfig(paths.configFile, () => readJsonFile(paths.configFile))), env);
}

/** config.json (docs/configuration.md#files). Secrets enter the keychain before the file names them and leave it
 * before the file forgets them. Every change re-reads the file under withFileLock (conf has no lock), keeping keys it
 * does not know, so concurrent changes and a newer petctl's fields survive; conf loads only to write. */
export class ProfileStore {
  readonly path: string;
  #paths: PetctlPaths;
  #snapshot: Snapshot;
  #conf?: Conf<ConfigDocument>;
  #env: Readonly<NodeJS.ProcessEnv>;

  constructor(paths: PetctlPaths, snapshot: Snapshot, env: Readonly<NodeJS.ProcessEnv>) {
    this.#paths = paths;
    this.path = paths.configFile;
    this.#snapshot = snapshot;
    this.#env = env;
  }

  async readSecret(ref: KeychainRef): Promise<string | undefined> {
    return askKeychain(this.#env, 'get', ref);
  }

  /** The chosen profile (maybe removed by hand), or the sandbox while no other exists; undefined when others exist
   * and none is chosen: a request must not go to the sandbox while the user may think it goes to production. */
  activeName(): string | undefined {
    if (this.#snapshot.active !== undefined) return this.#snapshot.active;
    const others = [...this.#snapshot.profiles.keys()].some((name) => name !== SANDBOX_PROFILE);
    return others ? undefined : SANDBOX_PROFILE;
  }

  get(name: string): StoredProfile | undefined {
    const entry = this.#snapshot.profiles.get(name);
    if (!entry && name !== SANDBOX_PROFILE) return undefined;
    return { name, ...entry, builtIn: name === SANDBOX_PROFILE };
  }

  list(): StoredProfile[] {
    return profileNames(this.#snapshot.profiles.keys()).map((name) => this.get(name)!);
  }

  /** `useIfFirst`: the first besides the sandbox becomes active (else what used the sandbox stops: no_profile). */
  async add(name: string, baseUrl: string, settings: StateStoreSettings = {}, options: { useIfFirst?: boolean } = {}): Promise<{ password?: SecretPlacement; nowActive: boolean }> {
    if (name === SANDBOX_PROFILE) {
      throw new UsageError(`"${SANDBOX_PROFILE}" is the built-in profile and cannot be added or replaced`, 'choose another name');
    }
    validateProfileName(name);
    const entry = { baseUrl: validateBaseUrl(baseUrl, '--base-url'), ...checkedStateUrl(settings) };
    const exists = () => new UsageError(`profile ${JSON.stringify(name)} already exists`, `to change it and keep its key, run petctl profile set ${name} --base-url <url>`);
    // Checked before a password goes to the keychain, and again under the lock.
    if (this.#snapshot.profiles.has(name)) throw exists();
    const password = settings.statePassword === undefined ? undefined : await placeSecret(this.#env, name, settings.statePassword);
    await this.#change((doc) => {
      const now = parseConfig(doc);
      if (now.profiles.has(name)) throw exists();
      if (options.useIfFirst && now.active === undefined && profileNames(now.profiles.keys()).length === 1) doc.activeProfile = name;
      doc.profiles[name] = { ...entry, ...(password && { statePassword: password.stored }) };
    }, password?.stored);
    return { password: password?.placement, nowActive: this.#snapshot.active === name };
  }

  async update(name: string, changes: { baseUrl?: string } & StateStoreSettings): Promise<SecretPlacement | undefined> {
    if (name === SANDBOX_PROFILE) {
      throw new UsageError(`the built-in "${SANDBOX_PROFILE}" profile has no base URL or state URL to change`, 'point a command elsewhere with --base-url, or add a profile');
    }
    const changed = { ...(changes.baseUrl === undefined ? {} : { baseUrl: validateBaseUrl(changes.baseUrl, '--base-url') }), ...checkedStateUrl(changes) };
    if (!this.#snapshot.profiles.has(name)) throw this.#unknown(name);
    const password = changes.statePassword === undefined ? undefined : await placeSecret(this.#env, name, changes.statePassword);
    let replaced: unknown;
    await this.#change((doc) => {
      const entry = existingEntry(doc, name)!;
      if (password) replaced = entry.statePassword;
      // Everything else the entry holds (the key above all) stays as it is.
      doc.profiles[name] = { ...entry, ...changed, ...(password && { statePassword: password.stored }) };
    }, password?.stored);
    await forgetSecrets(this.#env, [storedSecret(replaced)], false);
    return password?.placement;
  }

  async use(name: string): Promise<void> {
    await this.#change((doc) => {
      existingEntry(doc, name);
      doc.activeProfile = name;
    });
  }

  /** Removing the chosen profile leaves none chosen (see activeName); its secrets leave the keychain first. */
  async remove(name: string): Promise<void> {
    if (name === SANDBOX_PROFILE) {
      throw new UsageError(`the built-in "${SANDBOX_PROFILE}" profile cannot be removed`, `to forget its key, run petctl auth logout -p ${SANDBOX_PROFILE}`);
    }
    const entry = this.#snapshot.profiles.get(name);
    if (entry === undefined) throw this.#unknown(name);
    // A keychain that cannot delete the secrets keeps the profile, so its references are not lost.
    await forgetSecrets(this.#env, [entry.apiKey, entry.statePassword], true);
    await this.#change((doc) => {
      existingEntry(doc, name);
      delete doc.profiles[name];
      // Falling back to the sandbox would send the next command there without a word.
      if (doc.activeProfile === name) delete doc.activeProfile;
    });
  }

  /** What became of the key it replaced is read under the write's lock, so what auth login says is what happened. */
  async setKey(name: string, key: string, options: StoreOptions = {}): Promise<KeySet> {
    validateApiKey(key);
    if (!this.#snapshot.profiles.has(name) && name !== SANDBOX_PROFILE) throw this.#unknown(name);
    const placed = await placeSecret(this.#env, name, key, options.insecureStorage);
    let replaced: unknown;
    await this.#change((doc) => {
      const entry = existingEntry(doc, name);
      replaced = entry?.apiKey;
      doc.profiles[name] = { ...entry, apiKey: placed.stored };
    }, placed.stored);
    // A key kept in the file before is gone with the write above; one in the keychain goes too, wherever the new one went.
    if (typeof replaced === 'string' && replaced !== '') return { ...placed.placement, replaced: true, previous: replaced };
    return isKeychainRef(replaced) ? { ...placed.placement, replaced: true, ...(await retireSecret(this.#env, replaced)) } : { ...placed.placement, replaced: false };
  }

  async clearKey(name: string): Promise<SecretStorage | undefined> {
    const stored = this.#snapshot.profiles.get(name)?.apiKey;
    // Out of the keychain first: a keychain that does not answer keeps the reference, and says so.
    await forgetSecrets(this.#env, [stored], true);
    let removed: StoredSecret | undefined;
    await this.#change((doc) => {
      const entry = existingEntry(doc, name);
      if (entry === undefined || !Object.hasOwn(entry, 'apiKey')) return;
      const { apiKey, ...rest } = entry;
      removed = storedSecret(apiKey);
      // The sandbox's entry exists only to hold a key.
      if (name === SANDBOX_PROFILE && Object.keys(rest).length === 0) delete doc.profiles[name];
      else doc.profiles[name] = rest;
    });
    // Stored by another process since this one read the file: it goes too.
    if (isKeychainRef(removed) && (!isKeychainRef(stored) || removed.account !== stored.account)) await forgetSecrets(this.#env, [removed], false);
    return storageOf(removed);
  }

  /** `placed`: a secret just put in the keychain for the change, which goes again if the change fails. */
  async #change(change: (doc: ConfigDocument) => void, placed?: StoredSecret): Promise<void> {
    const file = this.#paths.configFile;
    await withFileLock(file, async () => {
      // What is read here is written back, keys and all: it must be the user's own file.
      assertOwnFile(file);
      const conf = await this.#openConf();
      // conf's `store` getter re-reads the file on every access.
      const doc = toDocument(checkedConfig(file, () => conf.store));
      const before = JSON.stringify(doc);
      change(doc);
      if (JSON.stringify(doc) !== before) conf.store = doc;
      this.#snapshot = parseConfig(doc);
    }).catch(async (error: unknown) => {
      await forgetSecrets(this.#env, [placed], false);
      throw error;
    });
  }

  #unknown(name: string): UsageError {
    return unknownProfile(name, this.list().map((profile) => profile.name));
  }

  async #openConf(): Promise<Conf<ConfigDocument>> {
    if (this.#conf) return this.#conf;
    // conf would create it with the umask's mode.
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
    // conf's `atomically` follows a symlink at the file and opens its temporary without O_EXCL: petctl's own writes.
    const internals = conf as unknown as { _write(value: unknown): void; _serialize(value: unknown): string };
    internals._write = (value) => writeFileAtomic(conf.path, internals._serialize(value));
    this.#conf = conf;
    return conf;
  }
}

function checkedStateUrl(settings: StateStoreSettings): { stateUrl?: string } {
  return settings.stateUrl === undefined ? {} : { stateUrl: validateStateUrl(settings.stateUrl, '--state-url') };
}

/** The profile `name` as the file holds it, or the unknown profile's error; undefined: the sandbox, with no entry. */
function existingEntry(doc: ConfigDocument, name: string): Record<string, unknown> | undefined {
  const entry = Object.hasOwn(doc.profiles, name) ? doc.profiles[name] : undefined;
  if (isRecord(entry)) return entry;
  if (name !== SANDBOX_PROFILE) throw unknownProfile(name, profileNames(parseConfig(doc).profiles.keys()));
  return undefined;
}
