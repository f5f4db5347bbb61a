import { type KeychainRef, KeychainUnavailableError, type StoredSecret, isKeychainRef } from './config-file';

/** Where a secret goes: the keychain when one answers, else config.json (mode 0600). */
export type SecretStorage = 'keychain' | 'config file';

export function storageOf(secret: StoredSecret | undefined): SecretStorage | undefined {
  return secret === undefined ? undefined : typeof secret === 'string' ? 'config file' : 'keychain';
}

/** `keychainFailure`: the keychain was tried and did not answer, so the file holds it. */
export interface SecretPlacement {
  storage: SecretStorage;
  keychainFailure?: KeychainUnavailableError;
}

/** Where the new key went; `replaced`: the profile had a key, gone from where it was kept unless `leftBehind` (in
 * the keychain, which could not delete it); `previous`: the replaced key, when it could be read. */
export interface KeySet extends SecretPlacement {
  replaced: boolean;
  previous?: string;
  leftBehind?: { ref: KeychainRef; reason: string };
}

/** `insecureStorage`: --insecure-storage, config.json without trying the keychain. */
export type StoreOptions = { insecureStorage?: boolean };

type Env = Readonly<NodeJS.ProcessEnv>;

type Placed = { stored: StoredSecret; placement: SecretPlacement };

/** In the keychain when one answers (unless `insecure`: --insecure-storage), else as it is for the file. */
export async function placeSecret(env: Env, name: string, secret: string, insecure?: boolean): Promise<Placed> {
  if (insecure) return { stored: secret, placement: { storage: 'config file' } };
  // An account of its own, so that config directories sharing one keychain never meet; 8 hex digits without node:crypto.
  const suffix = Math.floor(Math.random() * 0x1_0000_0000).toString(16).padStart(8, '0');
  const ref: KeychainRef = { store: 'keychain', service: 'petctl', account: `${name}/${suffix}` };
  try {
    await askKeychain(env, 'set', ref, secret);
    return { stored: ref, placement: { storage: 'keychain' } };
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    return { stored: secret, placement: { storage: 'config file', keychainFailure: error } };
  }
}

/** Read (to say what it was) and deleted; one that cannot be deleted is left, and why is said. */
export async function retireSecret(env: Env, ref: KeychainRef): Promise<Pick<KeySet, 'previous' | 'leftBehind'>> {
  const previous = await askKeychain(env, 'get', ref).catch(() => undefined);
  try {
    await askKeychain(env, 'delete', ref);
    return { previous };
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    return { previous, leftBehind: { ref, reason: error.reason } };
  }
}

/** `strict`: a keychain that does not answer is an error (nothing changed: config.json keeps the
 * reference). */
export async function forgetSecrets(
  env: Env,
  secrets: ReadonlyArray<StoredSecret | undefined>,
  strict: boolean,
): Promise<void> {
  for (const secret of secrets) {
    if (!isKeychainRef(secret)) continue;
    try {
      await askKeychain(env, 'delete', secret);
    } catch (error) {
      if (!strict) continue;
      throw error instanceof KeychainUnavailableError
        ? new KeychainUnavailableError(error.reason, 'nothing was removed; run it again once the keychain answers')
        : error;
    }
  }
}

/** @napi-rs/keyring runs in a child process: it opens D-Bus synchronously, and a bus that never answers would block
 * the thread past any timeout; a child can be killed. */
const TIMEOUT_MS = 3000;

type Reply = { ok: true; value?: string | null } | { ok: false; message: string };

// Runs in the child: one operation, its answer as one JSON line. The request (and a secret) comes on stdin, never in argv.
const CHILD = `
const { Entry } = require(process.argv[1]);
let input = '';
process.stdin.setEncoding('utf8').on('data', (c) => { input += c; }).on('end', () => {
  let reply;
  try {
    const r = JSON.parse(input);
    const entry = new Entry(r.service, r.account, { linux: { store: 'secret-service' } });
    if (r.op === 'set') { entry.setPassword(r.secret); reply = { ok: true }; }
    else if (r.op === 'get') reply = { ok: true, value: entry.getPassword() };
    else { entry.deleteCredential(); reply = { ok: true }; }
  } catch (error) { reply = { ok: false, message: String(error && error.message || error).split('\\n')[0] }; }
  process.stdout.write(JSON.stringify(reply));
});`;

/** `env`: the environment the keychain is reached through (D-Bus's address on Linux); `get` answers the
 * secret (undefined: the keychain has none). */
export async function askKeychain(env: Env, op: 'get' | 'set' | 'delete', ref: KeychainRef, secret?: string): Promise<string | undefined> {
  let binding: string;
  try {
    binding = require.resolve('@napi-rs/keyring');
  } catch {
    throw new KeychainUnavailableError('the optional package @napi-rs/keyring is not installed', 'reinstall petctl with its optional dependencies');
  }
  // Loaded only by what reads or writes a secret in the keychain (a require: the bundle's script has no import()).
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const reply = await new Promise<Reply>((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CHILD, binding], { env: { ...env }, stdio: ['pipe', 'pipe', 'ignore'], windowsHide: true });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new KeychainUnavailableError(`no answer within ${TIMEOUT_MS / 1000} s`));
    }, TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new KeychainUnavailableError(error.message));
    });
    child.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out) as Reply);
      } catch {
        reject(new KeychainUnavailableError('the keychain helper ended without an answer'));
      }
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify({ op, service: ref.service, account: ref.account, secret }));
  });
  if (!reply.ok) throw new KeychainUnavailableError(reply.message);
  return typeof reply.value === 'string' ? reply.value : undefined;
}
