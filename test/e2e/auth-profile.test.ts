import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, describe, expect, it } from 'vitest';
import {
  type CliOptions,
  type CliResult,
  cliSession,
  expectCleanError,
  expectPetctlHeaders,
  jsonError,
  newApiKey,
  tempDir,
} from '../helpers/cli';
import { type ScriptedServer, json, startScriptedServer } from '../helpers/scripted-server';

/**
 * Profiles and keys, end to end. Every key a test uses is passed to runCli as a
 * secret, so a key printed on stdout or stderr by any command fails the test.
 */

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };

interface Setup {
  configDir: string;
  configFile: string;
  petctl: (args: string[], options?: CliOptions) => Promise<CliResult>;
}

function setup(t: Pick<TestContext, 'onTestFinished'>, secrets: string[] = []): Setup {
  const configDir = tempDir();
  t.onTestFinished(() => fs.rmSync(configDir, { recursive: true, force: true }));
  return { configDir, configFile: path.join(configDir, 'config.json'), petctl: cliSession({ env: { PETCTL_CONFIG_DIR: configDir }, secrets }) };
}

async function scripted(t: Pick<TestContext, 'onTestFinished'>): Promise<ScriptedServer> {
  const server = await startScriptedServer(json(200, [PET], { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '41', 'x-ratelimit-reset': '1900000000' }));
  t.onTestFinished(() => server.close());
  return server;
}

function readConfig(file: string): { activeProfile?: string; profiles: Record<string, { baseUrl?: string; apiKey?: string }> } {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;
const mask = (key: string) => `****${key.slice(-4)}`;

async function ok(result: Promise<CliResult>): Promise<CliResult> {
  const done = await result;
  expect(done.code, `stderr: ${done.stderr}`).toBe(0);
  return done;
}

describe.concurrent('profiles', () => {
  it('add, list, use, -p, PETCTL_PROFILE, show and remove', async (t) => {
    const { petctl, configDir, configFile } = setup(t);

    const added = await ok(petctl(['profile', 'add', 'production', '--base-url', 'https://api.example.org/v1']));
    expect(added.stdout).toBe('');
    expect(added.stderr).toContain('Profile "production" added');
    await ok(petctl(['profile', 'add', 'staging', '--base-url', 'https://staging.example.org/v1/']));
    expect(modeOf(configFile)).toBe(0o600);
    expect(modeOf(configDir)).toBe(0o700);

    // The first profile added is chosen with it; the second is not.
    expect(added.stderr).toBe('Profile "production" added and now in use (petctl profile use sandbox to go back)\n');
    const listed = await ok(petctl(['profile', 'list', '-o', 'json']));
    expect(JSON.parse(listed.stdout)).toEqual([
      { name: 'sandbox', active: false, baseUrl: null, builtIn: true, key: null },
      { name: 'production', active: true, baseUrl: 'https://api.example.org/v1', builtIn: false, key: null },
      // Normalised: no trailing slash.
      { name: 'staging', active: false, baseUrl: 'https://staging.example.org/v1', builtIn: false, key: null },
    ]);
    const table = await ok(petctl(['profile', 'list']));
    expect(table.stdout).toBe(
      '\tsandbox\tembedded sandbox (in-process)\tbuilt-in\n*\tproduction\thttps://api.example.org/v1\tnone\n\tstaging\thttps://staging.example.org/v1\tnone\n',
    );

    await ok(petctl(['profile', 'use', 'staging']));
    expect(readConfig(configFile).activeProfile).toBe('staging');
    const afterUse = JSON.parse((await ok(petctl(['profile', 'list', '--json']))).stdout) as Array<{ name: string; active: boolean }>;
    expect(afterUse.filter((profile) => profile.active).map((profile) => profile.name)).toEqual(['staging']);

    const shown = JSON.parse((await ok(petctl(['profile', 'show', '-o', 'json']))).stdout);
    expect(shown).toMatchObject({ name: 'staging', active: true, baseUrl: 'https://staging.example.org/v1', storedKey: null, overrides: [] });
    // -p for one command, and PETCTL_PROFILE, without changing the active profile.
    expect(JSON.parse((await ok(petctl(['-p', 'production', 'profile', 'show', '-o', 'json']))).stdout)).toMatchObject({ name: 'production', active: false });
    expect(JSON.parse((await ok(petctl(['profile', 'show', '-o', 'json'], { env: { PETCTL_PROFILE: 'production' } }))).stdout)).toMatchObject({
      name: 'production',
    });
    expect(readConfig(configFile).activeProfile).toBe('staging');

    // Removing the active profile leaves none chosen while another is left.
    const removed = await ok(petctl(['profile', 'remove', 'staging']));
    expect(removed.stderr).toContain('No profile is chosen now: choose one with petctl profile use <name>.');
    expect(JSON.parse((await ok(petctl(['profile', 'list', '-o', 'json']))).stdout)).toEqual([
      { name: 'sandbox', active: false, baseUrl: null, builtIn: true, key: null },
      { name: 'production', active: false, baseUrl: 'https://api.example.org/v1', builtIn: false, key: null },
    ]);
    expect(modeOf(configFile)).toBe(0o600);
  });

  it('each profile sends its own key to its own base URL; -p beats PETCTL_PROFILE beats the active one', async (t) => {
    const production = await scripted(t);
    const staging = await scripted(t);
    const productionKey = newApiKey();
    const stagingKey = newApiKey();
    const { petctl } = setup(t, [productionKey, stagingKey]);
    await ok(petctl(['profile', 'add', 'production', '--base-url', production.baseUrl]));
    await ok(petctl(['profile', 'add', 'staging', '--base-url', staging.baseUrl]));
    await ok(petctl(['auth', 'login', '--insecure-storage', '--no-verify', '-p', 'production', '--with-token'], { input: `${productionKey}\n` }));
    await ok(petctl(['auth', 'login', '--insecure-storage', '--no-verify', '-p', 'staging', '--with-token'], { input: stagingKey }));
    await ok(petctl(['profile', 'use', 'staging']));

    const served = () => [production.requests.length, staging.requests.length];
    expect((await ok(petctl(['pets', 'list']))).stdout).toBe('1\tRex\t1\tavailable\n');
    expect(served()).toEqual([0, 1]);
    expectPetctlHeaders(staging.requests[0]!, stagingKey);

    await ok(petctl(['-p', 'production', 'pets', 'list']));
    expect(served()).toEqual([1, 1]);
    expectPetctlHeaders(production.requests[0]!, productionKey);

    await ok(petctl(['pets', 'list'], { env: { PETCTL_PROFILE: 'production' } }));
    expect(served()).toEqual([2, 1]);
    await ok(petctl(['-p', 'staging', 'pets', 'list'], { env: { PETCTL_PROFILE: 'production' } }));
    expect(served()).toEqual([2, 2]);
    expectPetctlHeaders(staging.requests[1]!, stagingKey);

    // --base-url overrides the profile's URL but keeps the profile's key.
    await ok(petctl(['-p', 'production', '--base-url', staging.baseUrl, 'pets', 'list']));
    expect(served()).toEqual([2, 3]);
    expectPetctlHeaders(staging.requests[2]!, productionKey);
    // PETCTL_BASE_URL likewise, but --base-url wins over it.
    await ok(petctl(['-p', 'production', 'pets', 'list'], { env: { PETCTL_BASE_URL: staging.baseUrl } }));
    expect(served()).toEqual([2, 4]);
    await ok(petctl(['-p', 'production', '--base-url', production.baseUrl, 'pets', 'list'], { env: { PETCTL_BASE_URL: staging.baseUrl } }));
    expect(served()).toEqual([3, 4]);

    const listed = JSON.parse((await ok(petctl(['profile', 'list', '-o', 'json']))).stdout) as Array<{ name: string; key: string | null }>;
    expect(listed.map((profile) => [profile.name, profile.key])).toEqual([
      ['sandbox', null],
      ['production', mask(productionKey)],
      ['staging', mask(stagingKey)],
    ]);
  });

  it('refuses to remove the sandbox, to add it, or to add an http:// URL that is not loopback (exit 2)', async (t) => {
    const { petctl, configDir } = setup(t);
    const sandbox = await petctl(['profile', 'remove', 'sandbox']);
    expect(sandbox.code).toBe(2);
    expectCleanError(sandbox);
    expect(sandbox.stderr).toContain('cannot be removed');

    const http = await petctl(['profile', 'add', 'insecure', '--base-url', 'http://example.org/v1']);
    expect(http.code).toBe(2);
    expectCleanError(http);
    expect(http.stderr).toContain('clear text');

    expect((await petctl(['profile', 'add', 'sandbox', '--base-url', 'https://api.example.org/v1'])).code).toBe(2);
    expect((await petctl(['profile', 'add', 'bad name', '--base-url', 'https://api.example.org/v1'])).code).toBe(2);
    expect((await petctl(['profile', 'add', 'nourl'])).code).toBe(2);
    expect((await petctl(['profile', 'use', 'nope'])).code).toBe(2);
    expect((await petctl(['profile', 'remove', 'nope'])).code).toBe(2);
    // Nothing was written by any of them.
    expect(fs.existsSync(path.join(configDir, 'config.json'))).toBe(false);

    // Loopback may use http://.
    await ok(petctl(['profile', 'add', 'local', '--base-url', 'http://127.0.0.1:4010/v1']));
    expect((await petctl(['profile', 'add', 'local', '--base-url', 'https://api.example.org/v1'])).code).toBe(2);
  });

  it('an unknown profile exits 2 everywhere: -p, PETCTL_PROFILE, profile show|use|remove, auth login', async (t) => {
    const { petctl } = setup(t);
    const human = await petctl(['-p', 'nope', 'pets', 'list']);
    expect(human.code).toBe(2);
    expectCleanError(human);
    expect(human.stderr).toBe('error: unknown profile "nope" from --profile (known: sandbox) (usage_error)\nhint: add it with petctl profile add nope --base-url <url>\n');

    const machine = await petctl(['-o', 'json', 'pets', 'list'], { env: { PETCTL_PROFILE: 'nope' } });
    expect(machine.code).toBe(2);
    expect(jsonError(machine)).toMatchObject({ code: 'usage_error', status: 0 });
    expect(jsonError(machine).message).toContain('PETCTL_PROFILE');

    for (const args of [['profile', 'show', 'nope'], ['profile', 'use', 'nope'], ['profile', 'remove', 'nope'], ['auth', 'login', '--insecure-storage', '-p', 'nope'], ['auth', 'status', '-p', 'nope']]) {
      const result = await petctl(args, { input: 'sk_test_0123456789abcdef' });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^error: unknown profile "nope"/);
    }
  });
});

describe.concurrent('auth', () => {
  it('login --with-token reads stdin; a piped stdin works without the flag; the key is never printed', async (t) => {
    const server = await scripted(t);
    const key = newApiKey();
    const second = newApiKey();
    const { petctl, configFile } = setup(t, [key, second]);
    await ok(petctl(['profile', 'add', 'staging', '--base-url', server.baseUrl]));

    const login = await ok(petctl(['-p', 'staging', 'auth', 'login', '--insecure-storage', '--no-verify', '--with-token'], { input: `  ${key}\n` }));
    expect(login.stdout).toBe('');
    expect(login.stderr).toContain('API key stored for profile "staging"');
    expect(readConfig(configFile).profiles.staging).toEqual({ baseUrl: server.baseUrl, apiKey: key });
    expect(modeOf(configFile)).toBe(0o600);

    // stdin is a pipe here, not a terminal: read from it even without --with-token.
    await ok(petctl(['-p', 'staging', 'auth', 'login', '--insecure-storage', '--no-verify'], { input: second }));
    expect(readConfig(configFile).profiles.staging?.apiKey).toBe(second);

    await ok(petctl(['-p', 'staging', '--verbose', 'pets', 'list']));
    expectPetctlHeaders(server.requests[0]!, second);

    // An empty stdin is refused and changes nothing.
    const empty = await petctl(['-p', 'staging', 'auth', 'login', '--insecure-storage', '--no-verify', '--with-token'], { input: '\n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no API key on standard input');
    expect(readConfig(configFile).profiles.staging?.apiKey).toBe(second);

    // A key that cannot go in a header is refused without being echoed.
    const spaced = await petctl(['-p', 'staging', 'auth', 'login', '--insecure-storage', '--no-verify'], { input: 'two words', secrets: ['two words'] });
    expect(spaced.code).toBe(2);
    expect(readConfig(configFile).profiles.staging?.apiKey).toBe(second);
  });

  it('status names one source for the key in use: PETCTL_API_KEY over a stored key says only that', async (t) => {
    const server = await scripted(t);
    const stored = newApiKey();
    const envKey = newApiKey();
    const { petctl } = setup(t, [stored, envKey]);
    await ok(petctl(['profile', 'add', 'production', '--base-url', server.baseUrl]));
    await ok(petctl(['auth', 'login', '--insecure-storage', '--no-verify', '--with-token'], { input: stored }));

    const status = await ok(petctl(['auth', 'status'], { env: { PETCTL_API_KEY: envKey } }));
    const keyLines = status.stdout.split('\n').filter((line) => /key|stored/i.test(line));
    expect(keyLines).toEqual([`API key:    ${mask(envKey)} (from PETCTL_API_KEY)`]);
    const asJson = JSON.parse((await ok(petctl(['auth', 'status', '-o', 'json'], { env: { PETCTL_API_KEY: envKey } }))).stdout);
    expect(asJson).toMatchObject({ key: mask(envKey), keySource: 'env', keyStorage: null });
  });

  it('status without rate-limit headers says so rather than inventing numbers', async (t) => {
    const server = await scripted(t);
    server.reply(json(200, []));
    const key = newApiKey();
    const { petctl } = setup(t, [key]);
    const status = await ok(petctl(['--base-url', server.baseUrl, 'auth', 'status'], { env: { PETCTL_API_KEY: key } }));
    expect(status.stdout).toContain('Rate limit: not reported\n');
    expect(status.stdout).toContain(`Base URL:   ${server.baseUrl} (from --base-url)`);
    expect(status.stdout).toContain(`API key:    ${mask(key)} (from PETCTL_API_KEY)`);
  });

  it('login on the sandbox profile: a sandbox key is accepted with its plan\'s limit, any other refused', async (t) => {
    const { petctl, configFile } = setup(t);
    const pro = await ok(petctl(['auth', 'login', '--insecure-storage', '--with-token'], { input: 'sandbox-pro' }));
    expect(pro.stderr).toMatch(/^Key accepted by the embedded sandbox: rate limit 300, \d+ left\.\n/);
    expect(readConfig(configFile).profiles.sandbox).toEqual({ apiKey: 'sandbox-pro' });
    const bogus = await petctl(['auth', 'login', '--insecure-storage', '--with-token'], { input: 'not-a-sandbox-key', secrets: ['not-a-sandbox-key'] });
    expect(bogus.code).toBe(4);
    expect(bogus.stderr).toMatch(/^error: key not accepted by the embedded sandbox: /);
    expect(readConfig(configFile).profiles.sandbox).toEqual({ apiKey: 'sandbox-pro' });
  });

  it('a rejected key exits 4 with a hint to log in, in human and JSON form', async (t) => {
    const server = await scripted(t);
    const unauthorized = json(401, { code: 'unauthorized', message: 'the API key is not valid', status: 401 }, { 'www-authenticate': 'Bearer' });
    server.reply(unauthorized, unauthorized, unauthorized);
    const key = newApiKey();
    const { petctl } = setup(t, [key]);
    await ok(petctl(['profile', 'add', 'production', '--base-url', server.baseUrl]));
    // Not the profile in use: the sandbox stays chosen.
    await ok(petctl(['profile', 'use', 'sandbox']));
    await ok(petctl(['auth', 'login', '--insecure-storage', '--no-verify', '-p', 'production'], { input: key }));

    const status = await petctl(['-p', 'production', 'auth', 'status']);
    expect(status.code).toBe(4);
    expectCleanError(status);
    // production is not the active profile, so the hint names it: a bare `auth login` would store the key in sandbox.
    expect(status.stderr).toBe('error: the API key is not valid (unauthorized, HTTP 401)\nhint: run petctl auth login -p production\n');

    const list = await petctl(['-p', 'production', 'pets', 'list']);
    expect(list.code).toBe(4);
    expect(list.stderr).toContain('hint: run petctl auth login -p production');

    const machine = await petctl(['-p', 'production', '-o', 'json', 'auth', 'status']);
    expect(machine.code).toBe(4);
    expect(jsonError(machine)).toEqual({ code: 'unauthorized', message: 'the API key is not valid', status: 401 });
    // A 401 is not retried.
    expect(server.requests).toHaveLength(3);
    server.verify();
  });

  it('a profile without a key exits 4 not_configured with the login hint, sending nothing', async (t) => {
    const server = await scripted(t);
    const { petctl } = setup(t);
    await ok(petctl(['profile', 'add', 'staging', '--base-url', server.baseUrl]));
    await ok(petctl(['profile', 'use', 'staging']));

    const active = await petctl(['pets', 'list']);
    expect(active.code).toBe(4);
    expectCleanError(active);
    expect(active.stderr).toBe('error: no API key for profile "staging" (not_configured)\nhint: run petctl auth login\n');

    await ok(petctl(['profile', 'use', 'sandbox']));
    const other = await petctl(['-p', 'staging', 'auth', 'status']);
    expect(other.code).toBe(4);
    expect(other.stderr).toContain('hint: run petctl auth login -p staging');

    const machine = await petctl(['-p', 'staging', '--json', 'pets', 'add', '--name', 'Rex', '--category-id', '1']);
    expect(machine.code).toBe(4);
    expect(jsonError(machine)).toEqual({ code: 'not_configured', message: 'no API key for profile "staging"', status: 0 });
    expect(server.requests).toHaveLength(0);
  });

  it('the sandbox profile needs no login; a stored sandbox key is used and can be logged out', async (t) => {
    const { petctl, configFile } = setup(t);
    const builtIn = JSON.parse((await ok(petctl(['auth', 'status', '-o', 'json']))).stdout);
    expect(builtIn).toMatchObject({ profile: 'sandbox', baseUrlSource: 'sandbox', key: '****free', keySource: 'sandbox-default', rateLimit: { limit: 60 } });
    expect(builtIn.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    await ok(petctl(['auth', 'login', '--insecure-storage', '--no-verify', '--with-token'], { input: 'sandbox-pro' }));
    expect(readConfig(configFile).profiles.sandbox).toEqual({ apiKey: 'sandbox-pro' });
    expect(JSON.parse((await ok(petctl(['auth', 'status', '--json']))).stdout)).toMatchObject({ keySource: 'profile', rateLimit: { limit: 300 } });

    await ok(petctl(['auth', 'logout']));
    expect(readConfig(configFile).profiles.sandbox).toBeUndefined();
    expect(JSON.parse((await ok(petctl(['auth', 'status', '--json']))).stdout)).toMatchObject({ keySource: 'sandbox-default', rateLimit: { limit: 60 } });

    // An unknown key is refused by the sandbox: exit 4.
    const bogus = await petctl(['pets', 'list'], { env: { PETCTL_API_KEY: 'not-a-sandbox-key' }, secrets: ['not-a-sandbox-key'] });
    expect(bogus.code).toBe(4);
    expect(bogus.stderr).toContain('hint: PETCTL_API_KEY was rejected; check its value or unset it to use the stored key');
  });

  it('the key never shows up in any output, verbose traces and errors included', async (t) => {
    const server = await scripted(t);
    server.reply(
      json(200, [PET]),
      json(400, { code: 'invalid_field', message: 'bad', status: 400 }),
      json(404, { code: 'pet_not_found', message: 'no animal has id 5', status: 404 }),
      json(401, { code: 'unauthorized', message: 'nope', status: 401 }),
    );
    const key = newApiKey();
    const { petctl } = setup(t, [key]);
    await ok(petctl(['profile', 'add', 'production', '--base-url', server.baseUrl]));
    await ok(petctl(['-p', 'production', 'auth', 'login', '--insecure-storage', '--no-verify', '--with-token'], { input: key }));
    // runCli rejects with SecretLeakError if the key is printed; each call below is checked.
    const results = [
      await petctl(['-p', 'production', '-v', 'pets', 'list']),
      await petctl(['-p', 'production', '-v', 'pets', 'add', '--name', 'Rex', '--category-id', '1']),
      await petctl(['-p', 'production', '-v', '-o', 'json', 'pets', 'get', '5']),
      await petctl(['-p', 'production', '-v', 'auth', 'status']),
      await petctl(['-p', 'production', 'profile', 'show']),
      await petctl(['-p', 'production', 'profile', 'show', '-o', 'json']),
      await petctl(['profile', 'list', '-o', 'csv']),
      await petctl(['-p', 'production', 'auth', 'status', '-o', 'ndjson']),
    ];
    expect(results.map((result) => result.code)).toEqual([0, 6, 3, 4, 0, 0, 0, 0]);
    expect(results[0]!.stderr).toContain('> Authorization: Bearer [redacted]');
  });
});
