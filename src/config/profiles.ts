import type Conf from 'conf';
import { ExitCode, PetctlError, UsageError } from '../errors';
import { assertOwnFile } from '../file-safety';
import { validateBaseUrl } from './base-url';
import { CorruptFileError, ensurePrivateDir, readJsonFile, withFileLock, writeFileAtomic } from '../locked-file';
import type { PetctlPaths } from './paths';
import { type ConfigDocument, SANDBOX_PROFILE, type Snapshot, type StateStoreSettings, byName, entryOf, knownNames, parseConfig, profileExists, stateSettings, toDocument } from './config-file';

/**
 * The profile store: named API endpoints, each with its own key, in
 * `<config dir>/config.json` (mode 0600, directory 0700), written through conf.
 *
 * Stored shape:
 *
 *   {
 *     "activeProfile"?: string,            // absent: none chosen (see activeName)
 *     "profiles": {
 *       "<name>": { "baseUrl": string, "apiKey"?: string, "stateUrl"?: string, "statePassword"?: string },
 *       "sandbox"?: { "apiKey"?: string }  // the built-in profile only ever stores a key
 *     }
 *   }
 *
 * Keys the store does not know (top level or inside a profile) are kept as they
 * are when it writes, so a newer petctl's additions survive an older one.
 *
 * Concurrency: conf rewrites the whole file on every write and has no lock, so
 * every change runs inside withFileLock(config.json) and re-reads the file
 * there (conf's `store` getter reads the file on each access) before writing:
 * two processes changing profiles at once both keep their change.
 *
 * Cost: importing conf loads ajv, ajv-formats and semver (about 100 ms on
 * Node 20), and every command opens this store. So reading is a plain read of
 * the same JSON file (atomic renames mean it is always a whole file), and conf
 * is imported only when something is written. A read-only command on a fresh
 * install creates nothing, not even the directory.
 */

export { SANDBOX_PROFILE };
/** The key the embedded sandbox accepts out of the box; used when the sandbox profile stores none. */
export const SANDBOX_DEFAULT_KEY = 'sandbox-free';

const PROFILE_NAME = /^[A-Za-z0-9._-]{1,64}$/;

export interface StoredProfile {
  name: string;
  /** Absent for the built-in sandbox (the in-process service) and for a hand-edited entry without one. */
  baseUrl?: string;
  apiKey?: string;
  /** The shared rate-limit state store (redis://…); it may hold a password. */
  stateUrl?: string;
  /** The state store's password, kept apart from the URL (--state-password-stdin). */
  statePassword?: string;
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
  /** Adds a profile without a key; refuses an existing name and the sandbox. */
  add(name: string, baseUrl: string, state?: StateStoreSettings): Promise<void>;
  /** Changes a profile's base URL and/or state store, keeping its key; refuses the sandbox and an unknown name. */
  update(name: string, changes: { baseUrl?: string } & StateStoreSettings): Promise<void>;
  use(name: string): Promise<void>;
  /** Removing the chosen profile leaves none chosen (see activeName). */
  remove(name: string): Promise<void>;
  /** The key it replaced, if any. */
  setKey(name: string, key: string): Promise<string | undefined>;
  /** True when a stored key was removed. */
  clearKey(name: string): Promise<boolean>;
}

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

export type { StateStoreSettings };

export async function openProfileStore(paths: PetctlPaths): Promise<ProfileStore> {
  return new ConfProfileStore(paths, parseConfig(readJsonFile(paths.configFile)));
}

/**
 * Other profiles exist and none is chosen (see ProfileStore.activeName): a
 * usage error (exit 2) before anything is sent. `others` excludes the sandbox.
 */
export function noProfileChosen(others: readonly string[]): PetctlError {
  return new PetctlError(
    ExitCode.USAGE,
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

class ConfProfileStore implements ProfileStore {
  readonly path: string;
  #paths: PetctlPaths;
  #snapshot: Snapshot;
  #conf?: Conf<ConfigDocument>;

  constructor(paths: PetctlPaths, snapshot: Snapshot) {
    this.#paths = paths;
    this.path = paths.configFile;
    this.#snapshot = snapshot;
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

  async add(name: string, baseUrl: string, settings: StateStoreSettings = {}): Promise<void> {
    if (name === SANDBOX_PROFILE) {
      throw new UsageError(`"${SANDBOX_PROFILE}" is the built-in profile and cannot be added or replaced`, 'choose another name');
    }
    validateProfileName(name);
    const url = validateBaseUrl(baseUrl, '--base-url');
    const state = stateSettings(settings);
    await this.#change((doc) => {
      if (profileExists(doc, name)) {
        throw new UsageError(`profile ${JSON.stringify(name)} already exists`, `to change it and keep its key, run petctl profile set ${name} --base-url <url>`);
      }
      doc.profiles[name] = { baseUrl: url, ...state };
    });
  }

  async update(name: string, changes: { baseUrl?: string } & StateStoreSettings): Promise<void> {
    if (name === SANDBOX_PROFILE) {
      throw new UsageError(`the built-in "${SANDBOX_PROFILE}" profile has no base URL or state URL to change`, 'point a command elsewhere with --base-url, or add a profile');
    }
    const url = changes.baseUrl === undefined ? undefined : validateBaseUrl(changes.baseUrl, '--base-url');
    const state = stateSettings(changes);
    await this.#change((doc) => {
      const entry = entryOf(doc, name);
      if (entry === undefined) throw unknownProfile(name, knownNames(doc));
      // Everything else the entry holds (the key above all) stays as it is.
      doc.profiles[name] = { ...entry, ...(url === undefined ? {} : { baseUrl: url }), ...state };
    });
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
    await this.#change((doc) => {
      if (!profileExists(doc, name)) throw unknownProfile(name, knownNames(doc));
      delete doc.profiles[name];
      // Falling back to the sandbox would send the next command there without a word.
      if (doc.activeProfile === name) delete doc.activeProfile;
    });
  }

  // The replaced key is read under the same lock as the write, so what auth login says is what happened.
  async setKey(name: string, key: string): Promise<string | undefined> {
    validateApiKey(key);
    let previous: string | undefined;
    await this.#change((doc) => {
      if (!profileExists(doc, name)) throw unknownProfile(name, knownNames(doc));
      const replaced = entryOf(doc, name)?.apiKey;
      previous = typeof replaced === 'string' ? replaced : undefined;
      doc.profiles[name] = { ...entryOf(doc, name), apiKey: key };
    });
    return previous;
  }

  async clearKey(name: string): Promise<boolean> {
    let removed = false;
    await this.#change((doc) => {
      if (!profileExists(doc, name)) throw unknownProfile(name, knownNames(doc));
      const entry = entryOf(doc, name);
      if (entry === undefined || !Object.hasOwn(entry, 'apiKey')) return;
      const { apiKey, ...rest } = entry;
      removed = typeof apiKey === 'string' && apiKey !== '';
      // The sandbox's entry exists only to hold a key.
      if (name === SANDBOX_PROFILE && Object.keys(rest).length === 0) delete doc.profiles[name];
      else doc.profiles[name] = rest;
    });
    return removed;
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
    const conf = wrapCorrupt(this.#paths.configFile, () => new ConfClass<ConfigDocument>({
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

/** conf's `store` getter re-reads the file on every access. */
function readStore(conf: Conf<ConfigDocument>, file: string): unknown {
  return wrapCorrupt(file, () => conf.store);
}

function wrapCorrupt<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SyntaxError) throw new CorruptFileError(file, error);
    throw error;
  }
}
