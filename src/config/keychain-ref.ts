import { AuthError } from '../errors';

/**
 * What config.json holds in place of a secret kept in the keychain, and the
 * error when the keychain does not answer (config/keychain.ts reads and writes
 * the keychain itself). Apart from it so that reading config.json loads
 * nothing of the keychain.
 */

export const KEYCHAIN_SERVICE = 'petctl';

export interface KeychainRef {
  store: 'keychain';
  service: string;
  account: string;
}

export function isKeychainRef(value: unknown): value is KeychainRef {
  if (typeof value !== 'object' || value === null) return false;
  const ref = value as Record<string, unknown>;
  return ref.store === 'keychain' && typeof ref.service === 'string' && ref.service !== '' && typeof ref.account === 'string' && ref.account !== '';
}

/** No keychain answered, or it refused: why, in words that name no secret. */
export class KeychainUnavailableError extends AuthError {
  readonly reason: string;

  constructor(reason: string, hint?: string) {
    super(`the keychain is not available: ${reason}`, { code: 'keychain_unavailable', hint });
    this.reason = reason;
  }
}
