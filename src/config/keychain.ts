import { spawn } from 'node:child_process';
import { KEYCHAIN_SERVICE, type KeychainRef, KeychainUnavailableError } from './keychain-ref';

/**
 * Secrets (API keys, state store passwords) in the operating system's keychain:
 * the Secret Service on Linux (GNOME Keyring, KWallet), the macOS Keychain, the
 * Windows Credential Manager, through @napi-rs/keyring, an optional dependency.
 *
 * config.json holds a KeychainRef in place of the secret. Each stored secret
 * gets an account of its own (`<profile>/<random>`), so two config directories
 * (two users' petctl, test suites) sharing one keychain never overwrite each
 * other's entries.
 *
 * Why a child process: the binding opens its D-Bus connection synchronously,
 * and a bus that accepts the connection but never answers blocks the thread
 * that asked for good; neither a timeout nor process.exit() ends a worker
 * thread stuck there. A child process can be killed, so "no keychain answers
 * within KEYCHAIN_TIMEOUT_MS" is a decision petctl takes rather than a hang.
 * The child costs a Node start (docs/configuration.md has the figure).
 */

export const KEYCHAIN_TIMEOUT_MS = 3000;

type Request = { op: 'set'; service: string; account: string; secret: string } | { op: 'get' | 'delete'; service: string; account: string };
type Reply = { ok: true; value?: string | null; deleted?: boolean } | { ok: false; message: string };

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
    else reply = { ok: true, deleted: entry.deleteCredential() };
  } catch (error) { reply = { ok: false, message: String(error && error.message || error).split('\\n')[0] }; }
  process.stdout.write(JSON.stringify(reply));
});`;

export interface Keychain {
  /** Stores `secret` under a new account for `profile`; throws KeychainUnavailableError. */
  save(profile: string, secret: string): Promise<KeychainRef>;
  /** The secret, or undefined when the keychain answers that it has none. */
  read(ref: KeychainRef): Promise<string | undefined>;
  /** True when an entry was deleted. */
  remove(ref: KeychainRef): Promise<boolean>;
}

export function openKeychain(env: Readonly<NodeJS.ProcessEnv>, timeoutMs = KEYCHAIN_TIMEOUT_MS): Keychain {
  const ask = (request: Request) => askChild(request, env, timeoutMs);
  return {
    async save(profile, secret) {
      const ref: KeychainRef = { store: 'keychain', service: KEYCHAIN_SERVICE, account: `${profile}/${randomSuffix()}` };
      await ask({ op: 'set', service: ref.service, account: ref.account, secret });
      return ref;
    },
    async read(ref) {
      const reply = await ask({ op: 'get', service: ref.service, account: ref.account });
      return typeof reply.value === 'string' ? reply.value : undefined;
    },
    async remove(ref) {
      return (await ask({ op: 'delete', service: ref.service, account: ref.account })).deleted === true;
    },
  };
}

function bindingPath(): string | undefined {
  try {
    return require.resolve('@napi-rs/keyring');
  } catch {
    return undefined;
  }
}

function askChild(request: Request, env: Readonly<NodeJS.ProcessEnv>, timeoutMs: number): Promise<Reply & { ok: true }> {
  const binding = bindingPath();
  if (binding === undefined) {
    return Promise.reject(new KeychainUnavailableError('the optional package @napi-rs/keyring is not installed', 'reinstall petctl with its optional dependencies'));
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CHILD, binding], { env: { ...env }, stdio: ['pipe', 'pipe', 'ignore'], windowsHide: true });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new KeychainUnavailableError(`no answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new KeychainUnavailableError(error.message));
    });
    child.on('close', () => {
      clearTimeout(timer);
      let reply: Reply;
      try {
        reply = JSON.parse(out) as Reply;
      } catch {
        return reject(new KeychainUnavailableError('the keychain helper ended without an answer'));
      }
      if (reply.ok) resolve(reply);
      else reject(new KeychainUnavailableError(reply.message));
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(request));
  });
}

/** 8 hex digits: enough to keep accounts apart, without loading node:crypto. */
function randomSuffix(): string {
  return Math.floor(Math.random() * 0x1_0000_0000).toString(16).padStart(8, '0');
}
