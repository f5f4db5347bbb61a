import type { StoredSecret } from './config-file';
import type { Keychain, KeychainUnavailableError } from './keychain';
import { type KeychainRef, isKeychainRef } from './keychain-ref';

/**
 * Where the profile store puts a secret: the keychain when one answers, or
 * config.json (mode 0600) when none does or the file is asked for. The
 * keychain module is loaded only when a secret is read or written there.
 */

/** Where a secret is kept. */
export type SecretStorage = 'keychain' | 'config file';

export function storageOf(secret: StoredSecret | undefined): SecretStorage | undefined {
  return secret === undefined ? undefined : typeof secret === 'string' ? 'config file' : 'keychain';
}

/** Where a secret went: the keychain, or the file, and why not the keychain when it was tried. */
export interface SecretPlacement {
  storage: SecretStorage;
  /** The keychain was tried and did not answer, so the file holds it. */
  keychainFailure?: KeychainUnavailableError;
}

export interface StoreOptions {
  /** Keep secrets in config.json without trying the keychain (--insecure-storage). */
  insecureStorage?: boolean;
}

export class SecretPlaces {
  #env: Readonly<NodeJS.ProcessEnv>;
  #keychain?: Promise<Keychain>;

  /** `env`: the environment the keychain is reached through (D-Bus's address on Linux). */
  constructor(env: Readonly<NodeJS.ProcessEnv>) {
    this.#env = env;
  }

  // Loaded only by what reads or writes a secret in the keychain.
  #open(): Promise<Keychain> {
    this.#keychain ??= import('./keychain').then(({ openKeychain }) => openKeychain(this.#env));
    return this.#keychain;
  }

  async read(ref: KeychainRef): Promise<string | undefined> {
    return (await this.#open()).read(ref);
  }

  /** The secret in the keychain when one answers (unless the file is asked for), else as it is for the file. */
  async place(name: string, secret: string, options: StoreOptions = {}): Promise<{ stored: StoredSecret } & SecretPlacement> {
    if (options.insecureStorage) return { stored: secret, storage: 'config file' };
    const { KeychainUnavailableError } = await import('./keychain');
    try {
      return { stored: await (await this.#open()).save(name, secret), storage: 'keychain' };
    } catch (error) {
      if (!(error instanceof KeychainUnavailableError)) throw error;
      return { stored: secret, storage: 'config file', keychainFailure: error };
    }
  }

  /** Deletes one keychain entry no longer referred to; undefined when done, else why it could not be. */
  async remove(ref: KeychainRef): Promise<KeychainUnavailableError | undefined> {
    try {
      await (await this.#open()).remove(ref);
      return undefined;
    } catch (error) {
      const { KeychainUnavailableError } = await import('./keychain');
      if (error instanceof KeychainUnavailableError) return error;
      throw error;
    }
  }

  /** Deletes keychain entries no longer referred to; `strict`: a keychain that does not answer is an error. */
  async forget(secrets: ReadonlyArray<StoredSecret | undefined>, strict: boolean): Promise<void> {
    for (const secret of secrets) {
      if (!isKeychainRef(secret)) continue;
      try {
        await (await this.#open()).remove(secret);
      } catch (error) {
        if (!strict) continue;
        const { KeychainUnavailableError } = await import('./keychain');
        // Nothing was changed: the reference stays in config.json, so the entry can still be found.
        throw error instanceof KeychainUnavailableError
          ? new KeychainUnavailableError(error.reason, 'nothing was removed; run it again once the keychain answers')
          : error;
      }
    }
  }
}
