import { spawn } from 'node:child_process';
import { type KeychainRef, KeychainUnavailableError } from './config-file';

/**
 * @napi-rs/keyring runs in a child process: it opens its D-Bus connection synchronously, and a bus that accepts it but
 * never answers blocks that thread for good, past any timeout; a child can be killed.
 */

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

/** `get` answers the secret (undefined: the keychain has none). */
export async function askKeychain(env: Readonly<NodeJS.ProcessEnv>, op: 'get' | 'set' | 'delete', ref: KeychainRef, secret?: string): Promise<string | undefined> {
  let binding: string;
  try {
    binding = require.resolve('@napi-rs/keyring');
  } catch {
    throw new KeychainUnavailableError('the optional package @napi-rs/keyring is not installed', 'reinstall petctl with its optional dependencies');
  }
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
