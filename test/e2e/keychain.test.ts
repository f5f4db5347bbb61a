import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSession, expectCleanError, ok, tempDir } from '../helpers/cli';
import { noSecretService, startSecretService } from '../helpers/secret-service';

/** Keys in a real Secret Service (gnome-keyring on a private D-Bus); without one, config.json. */

const KEY = 'sandbox-pro';

function configText(configDir: string): string {
  return fs.readFileSync(path.join(configDir, 'config.json'), 'utf8');
}

function storedApiKey(configDir: string, profile = 'sandbox'): unknown {
  return (JSON.parse(configText(configDir)) as { profiles: Record<string, { apiKey?: unknown }> }).profiles[profile]?.apiKey;
}

/** A Secret Service of the test's own, and petctl in a fresh config dir that reaches it. */
async function withSecretService(t: { onTestFinished(fn: () => Promise<void>): void }, secrets: string[]) {
  const keychain = await startSecretService();
  t.onTestFinished(() => keychain.stop());
  const configDir = tempDir();
  return { keychain, configDir, petctl: cliSession({ env: { PETCTL_CONFIG_DIR: configDir, ...keychain.env }, secrets }) };
}

describe.skipIf(noSecretService)('with a real Secret Service', () => {
  it('auth login stores the key in the keychain, config.json only where it is; pets list uses it; auth logout removes it; a key gone from the keychain, or a keychain gone, stops a command with exit 4 and says how to fix it; profile remove deletes the key and the state store password from it', async (t) => {
    const { keychain, configDir, petctl } = await withSecretService(t, [KEY, 's3cret-pw']);

    const login = await ok(petctl(['auth', 'login', '--with-token'], { input: KEY }));
    expect(login.stderr).not.toContain('no keychain available');
    const [account] = keychain.accounts();
    expect(keychain.accounts()).toEqual([expect.stringMatching(/^sandbox\/[0-9a-f]{8}$/)]);
    expect(storedApiKey(configDir)).toEqual({ store: 'keychain', service: 'petctl', account });
    expect(configText(configDir)).not.toContain(KEY);

    // The sandbox accepts the Pro key only because petctl read it from the keychain.
    const list = await ok(petctl(['pets', 'list', '--limit', '2', '-o', 'json']));
    expect(JSON.parse(list.stdout)).toHaveLength(2);

    const status = await petctl(['auth', 'status', '-o', 'json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ key: '****-pro', keySource: 'profile', keyStorage: 'keychain', rateLimit: { limit: 300 } });
    const show = await petctl(['profile', 'show']);
    expect(show.stdout).toContain('Stored key: ****-pro (keychain)\n');

    const noBus = { env: { DBUS_SESSION_BUS_ADDRESS: undefined } };
    const said = await petctl(['pets', 'list'], noBus);
    expect(said.code).toBe(4);
    expect(said.stderr).toMatch(
      /^error: the keychain is not available: .+ \(keychain_unavailable\)\nhint: is the keyring unlocked in this session\? PETCTL_API_KEY overrides the stored key\n$/,
    );
    // logout keeps the reference to an entry it cannot delete.
    const stuck = await petctl(['auth', 'logout'], noBus);
    expect(stuck.code).toBe(4);
    expect(stuck.stderr).toMatch(
      /^error: the keychain is not available: .+ \(keychain_unavailable\)\nhint: nothing was removed; run it again once the keychain answers\n$/,
    );
    expect(storedApiKey(configDir)).toMatchObject({ store: 'keychain' });
    expect(keychain.accounts()).toHaveLength(1);

    const logout = await petctl(['auth', 'logout']);
    expect(logout.stderr).toBe('API key removed from profile "sandbox" and from the keychain.\n');
    expect(keychain.accounts()).toEqual([]);
    expect(storedApiKey(configDir)).toBeUndefined();

    expect((await petctl(['auth', 'login', '--no-verify', '--with-token'], { input: KEY })).code).toBe(0);
    keychain.clear(keychain.accounts()[0]!);
    const gone = await petctl(['pets', 'list']);
    expectCleanError(gone, 4);
    expect(gone.stderr).toBe('error: the API key of profile "sandbox" is no longer in the keychain (not_configured)\nhint: run petctl auth login\n');
    expect((await petctl(['pets', 'list'], { env: { PETCTL_API_KEY: KEY, DBUS_SESSION_BUS_ADDRESS: undefined } })).code).toBe(0);

    const add = await petctl(['profile', 'add', 'staging', '--base-url', 'http://127.0.0.1:9/v1', '--state-url', 'redis://127.0.0.1:9/0', '--state-password-stdin'], { input: 's3cret-pw' });
    expect(add.code).toBe(0);
    expect(add.stderr).not.toContain('no keychain available');
    expect((await petctl(['-p', 'staging', 'auth', 'login', '--no-verify', '--with-token'], { input: KEY })).code).toBe(0);
    expect(keychain.accounts().sort()).toEqual([expect.stringMatching(/^staging\//), expect.stringMatching(/^staging\//)]);
    expect(configText(configDir)).not.toContain('s3cret-pw');
    expect(JSON.parse((await petctl(['profile', 'show', 'staging', '-o', 'json'])).stdout)).toMatchObject({ keyStorage: 'keychain', statePasswordSource: 'profile' });
    expect((await petctl(['profile', 'remove', 'staging', '--yes'])).code).toBe(0);
    expect(keychain.accounts()).toEqual([]);
  });

  it('a key in config.json keeps working; auth login moves it to the keychain; rotation removes the old key, or says where it is left', async (t) => {
    const NEXT = 'sandbox-business';
    const { keychain, configDir, petctl } = await withSecretService(t, [KEY, NEXT, 'sandbox-free']);

    expect((await petctl(['auth', 'login', '--insecure-storage', '--with-token'], { input: 'sandbox-free' })).code).toBe(0);
    expect(storedApiKey(configDir)).toBe('sandbox-free');
    expect(keychain.accounts()).toEqual([]);
    expect(JSON.parse((await petctl(['profile', 'show', '-o', 'json'])).stdout)).toMatchObject({ storedKey: '****free', keyStorage: 'config file' });
    expect((await petctl(['pets', 'list', '--limit', '1'])).code).toBe(0);

    const moved = await petctl(['auth', 'login', '--with-token'], { input: KEY });
    expect(moved.stderr).toContain('replaced the key ****free with ****-pro for profile sandbox');
    expect(keychain.accounts()).toHaveLength(1);
    expect(configText(configDir)).not.toContain('sandbox-free');
    expect(configText(configDir)).not.toContain(KEY);

    const onPurpose = await petctl(['auth', 'login', '--insecure-storage', '--no-verify', '--with-token'], { input: NEXT });
    expect(onPurpose.stderr).toBe('replaced the key ****-pro with ****ness for profile sandbox\n');
    expect(keychain.accounts()).toEqual([]);
    expect(storedApiKey(configDir)).toBe(NEXT);

    // Rotated from a shell that cannot reach the keychain.
    expect((await petctl(['auth', 'login', '--no-verify', '--with-token'], { input: KEY })).code).toBe(0);
    const [account] = keychain.accounts();
    const rotated = await petctl(['auth', 'login', '--no-verify', '--with-token'], { input: NEXT, env: { DBUS_SESSION_BUS_ADDRESS: undefined } });
    expect(rotated.code, rotated.stderr).toBe(0);
    const lines = rotated.stderr.split('\n');
    const configFile = path.join(configDir, 'config.json');
    expect(lines[0]).toBe(`no keychain available: the key is stored in ${configFile} (mode 0600)`);
    expect(lines[1]).toBe('replaced the key in the keychain with ****ness for profile sandbox');
    expect(lines[2]).toMatch(new RegExp(`^warning: the old key could not be removed from the keychain \\(.+\\); it is still there as service petctl, account ${account}$`));
    expect(lines.slice(3)).toEqual(['']);
    expect(storedApiKey(configDir)).toBe(NEXT);
    expect(keychain.accounts()).toEqual([account]);
  });
});

it('auth login stores the key in config.json (0600) and says so once; status says "config file"; a session bus that never answers: auth login falls back after the keychain timeout, not before', async (t) => {
  const configDir = tempDir();
  const petctl = cliSession({ env: { PETCTL_CONFIG_DIR: configDir }, secrets: [KEY] });

  const login = await ok(petctl(['auth', 'login', '--with-token'], { input: KEY }));
  const configFile = path.join(configDir, 'config.json');
  expect(login.stderr).toBe(
    `Key accepted by the embedded sandbox: rate limit 300, 299 left.\nno keychain available: the key is stored in ${configFile} (mode 0600)\nAPI key stored for profile "sandbox". Check it with: petctl auth status\n`,
  );
  expect(storedApiKey(configDir)).toBe(KEY);
  expect(fs.statSync(configFile).mode & 0o777).toBe(0o600);

  const list = await ok(petctl(['pets', 'list', '--limit', '1']));
  expect(list.stderr).toBe('');
  expect(JSON.parse((await petctl(['auth', 'status', '-o', 'json'])).stdout)).toMatchObject({ keyStorage: 'config file' });

  const business = { input: 'sandbox-business', secrets: ['sandbox-business'] };
  const replaced = await petctl(['auth', 'login', '--insecure-storage', '--with-token'], business);
  expect(replaced.stderr).toMatch(/^Key accepted by the embedded sandbox: rate limit \d+, \d+ left\.\n/);
  expect(replaced.stderr).toContain('\nreplaced the key ****-pro with ****ness for profile sandbox\n');
  expect(replaced.stderr.split('\n')).toHaveLength(3);

  const socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-silent-bus-'));
  const socket = path.join(socketDir, 'bus');
  const silent = net.createServer((connection) => connection.on('data', () => {}));
  await new Promise<void>((resolve) => silent.listen(socket, resolve));
  t.onTestFinished(() => {
    silent.close();
    fs.rmSync(socketDir, { recursive: true, force: true });
  });
  const started = Date.now();
  const env = { DBUS_SESSION_BUS_ADDRESS: `unix:path=${socket}` };
  const silently = await petctl(['-v', 'auth', 'login', '--no-verify', '--with-token'], { input: KEY, env });
  expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
  expect(silently.code).toBe(0);
  expect(silently.stderr).toContain('petctl: the keychain is not available: no answer within 3 s\n');
  expect(silently.stderr).toContain(`no keychain available: the key is stored in ${configFile} (mode 0600)\n`);
  expect(storedApiKey(configDir)).toBe(KEY);
});
