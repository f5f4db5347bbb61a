import { type KeychainRef, KeychainUnavailableError, type StoredSecret, isKeychainRef } from './config-file';

export type SecretStorage = 'keychain' | 'config file';

export function storageOf(secret: StoredSecret | undefined): SecretStorage | undefined {
  return secret === undefined ? undefined : typeof secret === 'string' ? 'config file' : 'keychain';
}

export interface SecretPlacement {
  storage: SecretStorage;
  /** The keychain was tried and did not answer, so the file holds it. */
  keychainFailure?: KeychainUnavailableError;
}

/** Where the new key went, and what became of the one it replaced. */
export interface KeySet extends SecretPlacement {
  /** The profile had a key, now gone from where it was kept (or still there: leftBehind). */
  replaced: boolean;
  /** The key replaced, when it could be read (one in the keychain may not be). */
  previous?: string;
  /** The replaced key is still in the keychain, because it could not be deleted: why. */
  leftBehind?: { ref: KeychainRef; reason: string };
}

export interface StoreOptions {
  /** Keep secrets in config.json without trying the keychain (--insecure-storage). */
  insecureStorage?: boolean;
}

export class SecretPlaces {
  readonly #env: Readonly<NodeJS.ProcessEnv>;

  /** `env`: the environment the keychain is reached through (D-Bus's address on Linux). */
  constructor(env: Readonly<NodeJS.ProcessEnv>) {
    this.#env = env;
  }

  // Loaded only by what reads or writes a secret in the keychain.
  async #ask(op: 'get' | 'set' | 'delete', ref: KeychainRef, secret?: string): Promise<string | undefined> {
    const { askKeychain } = await import('./keychain');
    return askKeychain(this.#env, op, ref, secret);
  }

  read(ref: KeychainRef): Promise<string | undefined> {
    return this.#ask('get', ref);
  }

  /** In the keychain when one answers (unless the file is asked for), else as it is for the file. */
  async place(name: string, secret: string, options: StoreOptions = {}): Promise<{ stored: StoredSecret; placement: SecretPlacement }> {
    if (options.insecureStorage) return { stored: secret, placement: { storage: 'config file' } };
    // An account of its own, so that config directories sharing one keychain never meet; 8 hex digits without node:crypto.
    const suffix = Math.floor(Math.random() * 0x1_0000_0000).toString(16).padStart(8, '0');
    const ref: KeychainRef = { store: 'keychain', service: 'petctl', account: `${name}/${suffix}` };
    try {
      await this.#ask('set', ref, secret);
      return { stored: ref, placement: { storage: 'keychain' } };
    } catch (error) {
      if (!(error instanceof KeychainUnavailableError)) throw error;
      return { stored: secret, placement: { storage: 'config file', keychainFailure: error } };
    }
  }

  /** Read (to say what it was) and deleted; one that cannot be deleted is left, and why is said. */
  async retire(ref: KeychainRef): Promise<Pick<KeySet, 'previous' | 'leftBehind'>> {
    const previous = await this.read(ref).catch(() => undefined);
    try {
      await this.#ask('delete', ref);
      return { previous };
    } catch (error) {
      if (!(error instanceof KeychainUnavailableError)) throw error;
      return { previous, leftBehind: { ref, reason: error.reason } };
    }
  }

  /** `strict`: a keychain that does not answer is an error. */
  async forget(secrets: ReadonlyArray<StoredSecret | undefined>, strict: boolean): Promise<void> {
    for (const secret of secrets) {
      if (!isKeychainRef(secret)) continue;
      try {
        await this.#ask('delete', secret);
      } catch (error) {
        if (!strict) continue;
        // Nothing was changed: the reference stays in config.json, so the entry can still be found.
        throw error instanceof KeychainUnavailableError
          ? new KeychainUnavailableError(error.reason, 'nothing was removed; run it again once the keychain answers')
          : error;
      }
    }
  }
}
