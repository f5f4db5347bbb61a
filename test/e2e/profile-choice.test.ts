import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, expect, it } from 'vitest';
import { type CliResult, cliSession, expectCleanError, jsonError, newApiKey, tempDir } from '../helpers/cli';
import { PET, json, startScriptedServer } from '../helpers/scripted-server';

/**
 * While profiles beside the sandbox exist and none is chosen, a command that talks to the service stops
 * before sending (no_profile). PETCTL_SANDBOX_LOG shows whether anything reached the embedded sandbox.
 */

const NO_PROFILE =
  'error: no profile chosen; petctl has profiles production, staging. Choose one with petctl profile use <name> or -p <name> (-p sandbox for the built-in sandbox) (no_profile)\n';

/** Two profiles holding one key, none chosen. */
async function setup(t: Pick<TestContext, 'onTestFinished'>, options: { profiles?: boolean } = {}) {
  const production = await startScriptedServer(json(201, PET), { closeAfter: t });
  const staging = await startScriptedServer(json(200, [PET]), { closeAfter: t });
  const configDir = tempDir();
  const log = path.join(configDir, 'sandbox.log');
  const key = newApiKey();
  const configFile = path.join(configDir, 'config.json');
  if (options.profiles !== false) {
    const profiles = {
      production: { baseUrl: production.baseUrl, apiKey: key },
      staging: { baseUrl: staging.baseUrl, apiKey: key },
    };
    fs.writeFileSync(configFile, JSON.stringify({ profiles }), { mode: 0o600 });
  }
  const petctl = cliSession({ env: { PETCTL_CONFIG_DIR: configDir, PETCTL_SANDBOX_LOG: log }, secrets: [key] });
  const sandboxRequests = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  return { petctl, production, staging, sandboxRequests, configFile };
}

function expectNoProfile(result: CliResult, names = 'production, staging'): void {
  expectCleanError(result, 2);
  expect(result.stderr).toBe(NO_PROFILE.replace('production, staging', names));
}

it.concurrent('two profiles added, none used: pets, api, auth and a bulk import stop with no_profile, exit 2, and nothing is sent anywhere; commands that do not talk to the service still work while none is chosen; a profile added then is not chosen; the environment may name the whole target: --base-url or PETCTL_BASE_URL with PETCTL_API_KEY need no profile among several: the request goes there with that key; auth status and -v say where each came from', async (t) => {
  const { petctl, production, staging, sandboxRequests, configFile } = await setup(t);
  const rows = path.join(path.dirname(configFile), 'rows.ndjson');
  fs.writeFileSync(rows, '{"name":"Rex","categoryId":1}\n');
  const add = ['pets', 'add', '--name', 'Rex', '--category-id', '1'];
  const reads = [['pets', 'list'], ['pets', 'get', '1'], ['api', '/pets'], ['auth', 'status'], ['auth', 'logout']];
  for (const args of [add, ...reads, ['pets', 'add', '--file', rows]]) {
    expectNoProfile(await petctl(args));
  }
  expectNoProfile(await petctl(['auth', 'login', '--insecure-storage', '--with-token'], { input: newApiKey() }));
  expect(jsonError(await petctl(['-o', 'json', 'pets', 'list']))).toMatchObject({ code: 'no_profile', status: 0 });

  const limits = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59' };
  const ci = await startScriptedServer(json(200, [PET], limits), { closeAfter: t });
  const ciKey = newApiKey();
  const mask = `****${ciKey.slice(-4)}`;
  const env = { PETCTL_API_KEY: ciKey, PETCTL_BASE_URL: ci.baseUrl };
  for (const args of [['pets', 'list'], ['api', '/pets']]) {
    const result = await petctl(args, { env });
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    expect(result.stderr).not.toContain('no_profile');
  }
  const traced = await petctl(['-v', '--base-url', ci.baseUrl, 'pets', 'list'], { env: { PETCTL_API_KEY: ciKey } });
  expect(traced.stderr).toContain(`* base URL ${ci.baseUrl} (from --base-url); key ${mask} (from PETCTL_API_KEY); profile none (the base URL and key are given without one)\n`);
  expect(ci.requests).toHaveLength(3);
  for (const request of ci.requests) expect(request.headers.authorization).toBe(`Bearer ${ciKey}`);

  const status = await petctl(['auth', 'status'], { env });
  expect(status.code, status.stderr).toBe(0);
  expect(status.stdout).toContain('Profile:    none (the base URL and key are given without one)\n');
  expect(status.stdout).toContain(`Base URL:   ${ci.baseUrl} (from PETCTL_BASE_URL)\n`);
  expect(status.stdout).toContain(`API key:    ${mask} (from PETCTL_API_KEY)\n`);
  expect(status.stdout).not.toContain('Stored in');

  const list = await petctl(['profile', 'list', '-o', 'json']);
  expect(list.code).toBe(0);
  expect((JSON.parse(list.stdout) as Array<{ active: boolean }>).some((profile) => profile.active)).toBe(false);
  const shown = await petctl(['profile', 'show']);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toMatch(/^Profile: +none chosen: commands that talk to the service stop \(no_profile\) until one is chosen with petctl profile use <name> or -p <name>\n/);
  expect(shown.stdout).toMatch(/Profiles: +sandbox, production, staging\n/);
  const third = await petctl(['profile', 'add', 'qa', '--base-url', 'https://qa.example.org/v1']);
  expect(third.stderr).toBe('Profile "qa" added. Store its key with: petctl auth login -p qa\n');
  expectNoProfile(await petctl(['pets', 'list']), 'production, qa, staging');
  for (const args of [
    ['profile', 'set', 'qa', '--base-url', 'https://qa2.example.org/v1'],
    ['completion', 'bash'],
    ['__complete', '--', '-p', ''],
    ['--help'],
    ['pets', 'list', '--help'],
    ['sandbox', '--help'],
  ]) {
    const result = await petctl(args);
    expect(result.code, args.join(' ')).toBe(0);
    expect(result.stderr, args.join(' ')).not.toContain('no_profile');
  }
  expect((await petctl(['profile', 'use', 'production'])).code).toBe(0);
  expect([production.requests.length, staging.requests.length, sandboxRequests().length]).toEqual([0, 0, 0]);
});

it.concurrent('profile add of the first profile: is used from then on and says so; pets list, which used the sandbox a minute ago, goes to it', async (t) => {
  const { petctl, staging: production, sandboxRequests } = await setup(t, { profiles: false });
  const added = await petctl(['profile', 'add', 'prod', '--base-url', production.baseUrl]);
  expect(added.code, added.stderr).toBe(0);
  expect(added.stdout).toBe('');
  expect(added.stderr).toBe('Profile "prod" added and now in use (petctl profile use sandbox to go back)\n');
  expect((await petctl(['auth', 'login', '--insecure-storage', '--no-verify', '--with-token'], { input: newApiKey() })).code).toBe(0);
  const listed = await petctl(['pets', 'list']);
  expect(listed.code, listed.stderr).toBe(0);
  expect(production.requests).toHaveLength(1);
  expect(sandboxRequests()).toEqual([]);

  const second = await petctl(['profile', 'add', 'qa', '--base-url', 'https://qa.example.org/v1']);
  expect(second.stderr).toBe('Profile "qa" added. Store its key with: petctl auth login -p qa\n');
  expect(JSON.parse((await petctl(['profile', 'show', '-o', 'json'])).stdout)).toMatchObject({ name: 'prod', active: true });
});
