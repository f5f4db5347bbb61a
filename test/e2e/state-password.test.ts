import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, setupE2e } from '../helpers/cli';
import { type RedisServer, freePort, noRedisServer, startRedisServer } from '../helpers/redis-server';
import { json } from '../helpers/scripted-server';

/**
 * The state store's password, never a flag: PETCTL_STATE_PASSWORD or --state-password-stdin, stored like
 * the key; in the URL it still works, masked. A real redis-server with requirepass.
 */

const PASSWORD = 'Correct-Horse-Battery-Staple-42';
const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };

function warnings(result: CliResult): string[] {
  return result.stderr.split('\n').filter((line) => line.startsWith('warning: '));
}

function connected(result: CliResult, where: string): void {
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toMatch(new RegExp(`^state-store: connect ${where.replace(/[./]/g, '\\$&')} -> ok`, 'm'));
  expect(warnings(result)).toEqual([]);
}

describe.skipIf(noRedisServer)('the state store password', () => {
  let redis: RedisServer;
  let bare: string;
  beforeAll(async () => {
    redis = await startRedisServer({ password: PASSWORD });
    bare = `redis://127.0.0.1:${new URL(redis.url).port}/0`;
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('from PETCTL_STATE_PASSWORD, with a state URL that holds none', async (t) => {
    const { petctl } = await setupE2e(t, json(200, [PET]));
    const run = (env: Record<string, string>) => petctl(['-v', 'pets', 'list'], { env: { PETCTL_STATE_URL: bare, ...env }, secrets: [PASSWORD] });
    connected(await run({ PETCTL_STATE_PASSWORD: PASSWORD }), bare);
    const without = await run({});
    expect(without.code).toBe(0);
    expect(warnings(without)).toEqual([`warning: cannot use the shared rate-limit state at ${bare}: the server requires a password (NOAUTH); using this machine's state file for the rest of this run`]);
  });

  it('read by profile set --state-password-stdin, stored apart from the URL in config.json (0600), and used', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, json(200, [PET]));
    const secrets = [PASSWORD];
    expect((await petctl(['profile', 'add', 'shelters'], { secrets })).code).toBe(0);
    const set = await petctl(['profile', 'set', 'shelters', '--state-url', bare, '--state-password-stdin'], { input: `${PASSWORD}\n`, secrets });
    expect(set.code, set.stderr).toBe(0);
    // (setupE2e passes --base-url to every command, so the base URL is "changed" to itself.)
    // No keychain in this test's environment: the password goes to config.json, said once.
    expect(set.stderr).toMatch(/^no keychain available: the state store password is stored in \S+config\.json \(mode 0600\)\nProfile "shelters" changed: base URL \S+, state URL, state store password; its key is kept\.\n$/);
    const configFile = path.join(configDir, 'config.json');
    expect(JSON.parse(fs.readFileSync(configFile, 'utf8')).profiles.shelters).toEqual({ baseUrl: server.baseUrl, stateUrl: bare, statePassword: PASSWORD });
    expect(fs.statSync(configFile).mode & 0o777).toBe(0o600);

    connected(await petctl(['-v', '-p', 'shelters', 'pets', 'list'], { secrets }), bare);
    const shown = await petctl(['profile', 'show', 'shelters'], { secrets });
    expect(shown.stdout).toContain(`State store: ${bare} (profile; password stored)\n`);
    // PETCTL_STATE_PASSWORD overrides the stored one.
    const overridden = await petctl(['-v', '-p', 'shelters', 'pets', 'list'], { env: { PETCTL_STATE_PASSWORD: 'not-the-password' }, secrets: [...secrets, 'not-the-password'] });
    expect(warnings(overridden)).toEqual([expect.stringContaining('refused the user name or password (WRONGPASS)')]);
  });

  it('profile add --state-password-stdin stores it too; a password given twice, or without a state URL, is refused (exit 2)', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, json(200, [PET]));
    const secrets = [PASSWORD];
    const added = await petctl(['profile', 'add', 'shelters', '--base-url', server.baseUrl, '--state-url', bare, '--state-password-stdin'], { input: PASSWORD, secrets });
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(configDir, 'config.json'), 'utf8')).profiles.shelters.statePassword).toBe(PASSWORD);
    connected(await petctl(['-v', '-p', 'shelters', 'pets', 'list'], { secrets }), bare);

    const twice = await petctl(['profile', 'set', 'shelters', '--state-url', redis.url, '--state-password-stdin'], { input: PASSWORD, secrets });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toBe('error: the state URL holds a password and --state-password-stdin reads another (usage_error)\nhint: leave the password out of the URL\n');
    const noUrl = await petctl(['profile', 'add', 'plain', '--base-url', server.baseUrl, '--state-password-stdin'], { input: PASSWORD, secrets });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/^error: profile "plain" has no state URL for the password \(usage_error\)\n/);
    const empty = await petctl(['profile', 'set', 'shelters', '--state-password-stdin'], { input: '\n', secrets });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^error: no state store password on standard input \(usage_error\)\n/);
  });

  it.for([
    ['the user-name slot', (pw: string) => `${pw}@`, '****@'],
    ['the password slot', (pw: string) => `:${pw}@`, ':****@'],
  ] as const)('in %s of the URL: it works, and profile list, profile show, -v and errors mask it', async ([, credentials, masked], t) => {
    const { server, petctl } = await setupE2e(t, json(200, [PET]));
    const secrets = [PASSWORD];
    const port = new URL(redis.url).port;
    const url = `redis://${credentials(PASSWORD)}127.0.0.1:${port}/0`;
    const added = await petctl(['profile', 'add', 'shelters', '--base-url', server.baseUrl, '--state-url', url], { secrets });
    expect(added.code, added.stderr).toBe(0);
    expect((await petctl(['profile', 'use', 'shelters'], { secrets })).code).toBe(0);

    expect((await petctl(['profile', 'list'], { secrets })).stdout).toContain(`redis://${masked}127.0.0.1:${port}/0`);
    expect(JSON.parse((await petctl(['profile', 'list', '-o', 'json'], { secrets })).stdout)[1].stateUrl).toBe(`redis://${masked}127.0.0.1:${port}/0`);
    expect((await petctl(['profile', 'show'], { secrets })).stdout).toContain(`State store: redis://${masked}127.0.0.1:${port}/0 (profile; password in the URL)\n`);
    connected(await petctl(['-v', 'pets', 'list'], { secrets }), bare);

    // A store that is down, and a URL refused as invalid: neither says the password.
    const closed = await freePort();
    const down = await petctl(['-v', 'pets', 'list'], { env: { PETCTL_STATE_URL: `redis://${credentials(PASSWORD)}127.0.0.1:${closed}/0` }, secrets });
    expect(warnings(down)).toEqual([expect.stringContaining(`cannot use the shared rate-limit state at redis://127.0.0.1:${closed}/0: `)]);
    const invalid = await petctl(['profile', 'set', 'shelters', '--state-url', `redis://${credentials(PASSWORD)}127.0.0.1:${port}/not-a-db`], { secrets });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^error: --state-url may only name a database number/);
    expect((await petctl(['-o', 'json', 'pets', 'list'], { env: { PETCTL_STATE_URL: `redis://${credentials(PASSWORD)}127.0.0.1:${port}/x` }, secrets })).code).toBe(2);
  });
});
