import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSession, expectCleanError, expectPetctlHeaders, newApiKey, ok, tempDir } from '../helpers/cli';
import { PET, json, startScriptedServer } from '../helpers/scripted-server';

/** Profiles and keys; every key is passed to runCli as a secret, so a key printed anywhere fails the test. */

const LIMITS = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '41', 'x-ratelimit-reset': '1900000000' };
const NOT_FOUND = json(404, { code: 'not_found', message: 'no such path: /pets', status: 404 });
const WRONG = (url: string) =>
  `error: ${url} has no /pets (HTTP 404): the base URL is wrong; nothing stored (wrong_base_url, HTTP 404)\n`;

function setup(secrets: string[] = []) {
  const configDir = tempDir();
  return { configDir, configFile: path.join(configDir, 'config.json'), petctl: cliSession({ env: { PETCTL_CONFIG_DIR: configDir }, secrets }) };
}

function readConfig(file: string): { activeProfile?: string; profiles: Record<string, { baseUrl?: string; apiKey?: string }> } {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

const mask = (key: string) => `****${key.slice(-4)}`;

describe.concurrent('profiles and auth', () => {
  it('each profile sends its own key to its own base URL; -p beats PETCTL_PROFILE beats the active one; status names one source for the key in use: PETCTL_API_KEY over a stored key says only that', async (t) => {
    const production = await startScriptedServer(json(200, [PET], LIMITS), { closeAfter: t });
    const staging = await startScriptedServer(json(200, [PET], LIMITS), { closeAfter: t });
    const productionKey = newApiKey();
    const stagingKey = newApiKey();
    const envKey = newApiKey();
    const { petctl } = setup([productionKey, stagingKey, envKey]);
    const profiles = [['production', production, productionKey], ['staging', staging, stagingKey]] as const;
    for (const [name, server, key] of profiles) {
      await ok(petctl(['profile', 'add', name, '--base-url', server.baseUrl]));
      // stdin is a pipe: read even without --with-token.
      await ok(petctl(['auth', 'login', '--insecure-storage', '--no-verify', '-p', name], { input: `${key}\n` }));
    }
    await ok(petctl(['profile', 'use', 'staging']));

    const served = () => [production.requests.length, staging.requests.length];
    expect((await ok(petctl(['pets', 'list']))).stdout).toBe('1\tRex\t1\tavailable\n');
    expect(served()).toEqual([0, 1]);
    expectPetctlHeaders(staging.requests[0]!, stagingKey);
    await ok(petctl(['pets', 'list'], { env: { PETCTL_PROFILE: 'production' } }));
    expect(served()).toEqual([1, 1]);
    expectPetctlHeaders(production.requests[0]!, productionKey);
    await ok(petctl(['-p', 'staging', 'pets', 'list'], { env: { PETCTL_PROFILE: 'production' } }));
    expect(served()).toEqual([1, 2]);
    expectPetctlHeaders(staging.requests[1]!, stagingKey);

    staging.reply(json(200, []));
    const status = await ok(petctl(['auth', 'status'], { env: { PETCTL_API_KEY: envKey } }));
    expect(status.stdout).toContain('Rate limit: not reported\n');
    const keyLines = status.stdout.split('\n').filter((line) => /key|stored/i.test(line));
    expect(keyLines).toEqual([`API key:    ${mask(envKey)} (from PETCTL_API_KEY)`]);
    const asJson = JSON.parse((await ok(petctl(['auth', 'status', '-o', 'json'], { env: { PETCTL_API_KEY: envKey } }))).stdout);
    expect(asJson).toMatchObject({ key: mask(envKey), keySource: 'env', keyStorage: null });
  });

  it('the sandbox profile needs no login; a sandbox key is accepted with its plan\'s limit, any other refused; logout goes back to the default', async () => {
    const { petctl, configFile } = setup();
    const builtIn = JSON.parse((await ok(petctl(['auth', 'status', '-o', 'json']))).stdout);
    expect(builtIn).toMatchObject({ profile: 'sandbox', baseUrlSource: 'sandbox', key: '****free', keySource: 'sandbox-default', rateLimit: { limit: 60 } });
    expect(builtIn.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const pro = await ok(petctl(['auth', 'login', '--insecure-storage', '--with-token'], { input: 'sandbox-pro' }));
    expect(pro.stderr).toMatch(/^Key accepted by the embedded sandbox: rate limit 300, \d+ left\.\n/);
    expect(readConfig(configFile).profiles.sandbox).toEqual({ apiKey: 'sandbox-pro' });
    expect(JSON.parse((await ok(petctl(['auth', 'status', '--json']))).stdout)).toMatchObject({ keySource: 'profile', rateLimit: { limit: 300 } });
    const bogus = await petctl(['auth', 'login', '--insecure-storage', '--with-token'], { input: 'not-a-sandbox-key', secrets: ['not-a-sandbox-key'] });
    expect(bogus.code).toBe(4);
    expect(bogus.stderr).toMatch(/^error: key not accepted by the embedded sandbox: /);
    expect(bogus.stderr).not.toContain('replaced');
    const empty = await petctl(['auth', 'login', '--insecure-storage', '--no-verify'], { input: '\n' });
    expect(empty).toMatchObject({ code: 2, stderr: expect.stringContaining('no API key on standard input') });
    // No key is this long: more is a file or a stream (/dev/zero) given by mistake, never read whole.
    const huge = await petctl(['auth', 'login', '--insecure-storage', '--no-verify', '--with-token'], { input: 'k'.repeat(64 * 1024 + 1) });
    expect(huge).toMatchObject({ code: 2, stderr: expect.stringContaining('error: standard input holds more than 64 KiB, more than any API key (usage_error)\n') });
    expect(readConfig(configFile).profiles.sandbox).toEqual({ apiKey: 'sandbox-pro' });

    await ok(petctl(['auth', 'logout']));
    expect(readConfig(configFile).profiles.sandbox).toBeUndefined();
    expect(JSON.parse((await ok(petctl(['auth', 'status', '--json']))).stdout)).toMatchObject({ keySource: 'sandbox-default', rateLimit: { limit: 60 } });
  });
});

it.concurrent.for([
  {
    what: 'a 404 from a base URL without /v1: exit 2, and the hint names the corrected URL',
    reply: NOT_FOUND,
    base: (v1: string) => v1.replace(/\/v1$/, ''),
    code: 2,
    stderr: (url: string) => `${WRONG(url)}hint: the base URL probably lacks /v1: ${url}/v1\n`,
  },
  {
    what: 'a 404 from a base URL that ends in a version: exit 2, and no /v1 guess',
    reply: NOT_FOUND,
    base: (v1: string) => v1,
    code: 2,
    stderr: (url: string) => `${WRONG(url)}hint: check the base URL: petctl profile show\n`,
  },
  {
    what: 'a 503 (an answer, but no verdict on the key): exit 7, --no-verify suggested',
    reply: json(503, { code: 'unavailable', message: 'try later', status: 503 }),
    base: (v1: string) => v1,
    code: 7,
    stderr: () =>
      expect.stringMatching(
        /^error: the key could not be checked \(.*\); nothing stored \(unavailable, HTTP 503\)\nhint: --no-verify stores it without asking the service\n$/,
      ),
  },
])('auth login checks the key before storing it: $what; nothing stored', async ({ reply, base, code, stderr }, t) => {
  const server = await startScriptedServer(reply, { closeAfter: t });
  const key = newApiKey();
  const { petctl, configFile } = setup([key]);
  const baseUrl = base(server.baseUrl);
  expect((await petctl(['profile', 'add', 'production', '--base-url', baseUrl])).code).toBe(0);

  const login = ['auth', 'login', '--insecure-storage', '--with-token'];
  const result = await petctl([...login, '--retries', '0'], { input: key });

  expectCleanError(result, code);
  expect(result.stderr).toEqual(stderr(baseUrl));
  expect(readConfig(configFile).profiles.production?.apiKey).toBeUndefined();
  // The same with --base-url; -o json gives the code.
  if (code !== 2 || baseUrl === server.baseUrl) return;
  expect((await petctl(['profile', 'add', 'right', '--base-url', server.baseUrl])).code).toBe(0);
  const given = await petctl(['-o', 'json', '--base-url', baseUrl, '-p', 'right', ...login], { input: key });
  expect(JSON.parse(given.stderr)).toMatchObject({ code: 'wrong_base_url', status: 404 });
  expect(server.requests.map((request) => request.path)).toEqual(['/pets', '/pets']);
});
