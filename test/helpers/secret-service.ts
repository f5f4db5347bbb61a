import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// gnome-keyring-daemon unlocked on a private D-Bus session bus; missing tools skip its tests, except under CI=true.

const TOOLS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'];
const missing = TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
if (missing.length > 0 && process.env.CI === 'true') {
  throw new Error(`${missing.join(', ')} not installed, and CI=true: the keychain tests must run (apt-get install gnome-keyring dbus libsecret-tools)`);
}
if (missing.length > 0) console.warn(`skipping the keychain tests: ${missing.join(', ')} not installed (apt-get install gnome-keyring dbus libsecret-tools)`);
/** For describe.skipIf: true when the tools are missing on a developer's machine. */
export const noSecretService = missing.length > 0;

export async function startSecretService() {
  const dataHome = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-keyring-'));
  const script = 'printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null && echo "$DBUS_SESSION_BUS_ADDRESS" && exec sleep 600';
  const session: ChildProcess = spawn('dbus-run-session', ['--', 'sh', '-c', script], {
    env: { PATH: process.env.PATH, HOME: dataHome, XDG_DATA_HOME: dataHome, XDG_RUNTIME_DIR: dataHome },
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    session.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.trim());
    });
    session.on('exit', (code) => reject(new Error(`dbus-run-session ended (${code}) before the keyring was unlocked`)));
  });
  const env = { DBUS_SESSION_BUS_ADDRESS: address, XDG_DATA_HOME: dataHome };
  const secretTool = (...args: string[]) =>
    spawnSync('secret-tool', args, { env: { PATH: process.env.PATH, HOME: dataHome, ...env }, encoding: 'utf8' });
  return {
    /** What petctl and secret-tool need to reach it. */
    env,
    /** The accounts (attribute.username) of `secret-tool search --all service petctl`. */
    accounts() {
      const found = secretTool('search', '--all', 'service', 'petctl');
      // secret-tool writes the attributes to stderr, the secrets to stdout.
      return [...`${found.stdout}${found.stderr}`.matchAll(/^attribute\.username = (.*)$/gm)].map((match) => match[1]!);
    },
    /** Deletes an entry behind petctl's back. */
    clear(account: string) {
      secretTool('clear', 'service', 'petctl', 'username', account);
    },
    async stop() {
      const ended = new Promise((resolve) => session.once('exit', resolve));
      // The whole group: dbus-run-session, its bus, the keyring daemon and sleep.
      try {
        process.kill(-session.pid!, 'SIGTERM');
      } catch {}
      if (session.exitCode === null && session.signalCode === null) await ended;
      fs.rmSync(dataHome, { recursive: true, force: true });
    },
  };
}
