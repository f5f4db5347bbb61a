import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, describe, expect, it } from 'vitest';
import { type CliResult, cliSession, expectCleanError, jsonError, newApiKey, tempDir } from '../helpers/cli';
import { type ScriptedServer, json, startScriptedServer } from '../helpers/scripted-server';

/**
 * While profiles beside the sandbox exist and none is chosen, a command that talks to the service stops
 * before sending (no_profile). PETCTL_SANDBOX_LOG shows whether anything reached the embedded sandbox.
 */

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const NO_PROFILE =
  'error: no profile chosen; petctl has profiles production, staging. Choose one with petctl profile use <name> or -p <name> (-p sandbox for the built-in sandbox) (no_profile)\n';

interface Setup {
  petctl: (args: string[], options?: { env?: Record<string, string>; input?: string }) => Promise<CliResult>;
  production: ScriptedServer;
  staging: ScriptedServer;
  /** What the embedded sandbox received, one line per request. */
  sandboxRequests: () => string[];
  configFile: string;
  /** The key stored in both profiles. */
  key: string;
}

async function setup(t: Pick<TestContext, 'onTestFinished'>, options: { profiles?: boolean } = {}): Promise<Setup> {
  const production = await startScriptedServer(json(201, PET));
  const staging = await startScriptedServer(json(200, [PET]));
  const configDir = tempDir();
  const log = path.join(configDir, 'sandbox.log');
  t.onTestFinished(async () => {
    await production.close();
    await staging.close();
  });
  const key = newApiKey();
  const petctl = cliSession({ env: { PETCTL_CONFIG_DIR: configDir, PETCTL_SANDBOX_LOG: log }, secrets: [key] });
  if (options.profiles !== false) {
    for (const [name, server] of [['production', production], ['staging', staging]] as const) {
      expect((await petctl(['profile', 'add', name, '--base-url', server.baseUrl])).code).toBe(0);
      expect((await petctl(['auth', 'login', '--insecure-storage', '-p', name, '--no-verify', '--with-token'], { input: key })).code).toBe(0);
    }
    // The first profile added was chosen with it; none chosen is what a config written by hand, or
    // the removal of the chosen profile, leaves.
    const configFile = path.join(configDir, 'config.json');
    const { activeProfile, ...config } = JSON.parse(fs.readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    expect(activeProfile).toBe('production');
    fs.writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });
  }
  const sandboxRequests = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  return { petctl, key, production, staging, sandboxRequests, configFile: path.join(configDir, 'config.json') };
}

function expectNoProfile(result: CliResult, names = 'production, staging'): void {
  expect(result.code).toBe(2);
  expect(result.stderr).toBe(NO_PROFILE.replace('production, staging', names));
  expectCleanError(result);
}

describe.concurrent('the profile a command uses', () => {
  it('two profiles added, none used: pets, api, auth and a bulk import stop with no_profile, exit 2, and nothing is sent anywhere', async (t) => {
    const { petctl, production, staging, sandboxRequests, configFile } = await setup(t);
    const rows = path.join(path.dirname(configFile), 'rows.ndjson');
    fs.writeFileSync(rows, '{"name":"Rex","categoryId":1}\n');
    expectNoProfile(await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '1']));
    for (const args of [['pets', 'list'], ['pets', 'get', '1'], ['api', '/pets'], ['auth', 'status'], ['auth', 'logout'], ['pets', 'add', '--file', rows]]) {
      expectNoProfile(await petctl(args));
    }
    expectNoProfile(await petctl(['auth', 'login', '--insecure-storage', '--with-token'], { input: newApiKey() }));
    expect(jsonError(await petctl(['-o', 'json', 'pets', 'list']))).toMatchObject({ code: 'no_profile', status: 0 });
    expect(production.requests).toHaveLength(0);
    expect(staging.requests).toHaveLength(0);
    expect(sandboxRequests()).toEqual([]);
  });

  it('commands that do not talk to the service still work while none is chosen', async (t) => {
    const { petctl, production, staging, sandboxRequests, configFile } = await setup(t);
    const list = await petctl(['profile', 'list', '-o', 'json']);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ active: boolean }>).some((profile) => profile.active)).toBe(false);
    const shown = await petctl(['profile', 'show']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^Profile: +none chosen: commands that talk to the service stop \(no_profile\) until one is chosen with petctl profile use <name> or -p <name>\n/);
    expect(shown.stdout).toMatch(/Profiles: +sandbox, production, staging\n/);
    for (const args of [
      ['profile', 'add', 'qa', '--base-url', 'https://qa.example.org/v1'],
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
    expect(production.requests).toHaveLength(0);
    expect(staging.requests).toHaveLength(0);
    expect(sandboxRequests()).toEqual([]);
  });
});

describe.concurrent('the environment may name the whole target', () => {
  it('--base-url or PETCTL_BASE_URL with PETCTL_API_KEY need no profile: no no_profile among several, and the request goes there with that key', async (t) => {
    const { petctl, production, staging, sandboxRequests } = await setup(t);
    const ci = await startScriptedServer(json(200, [PET]));
    t.onTestFinished(() => ci.close());
    const ciKey = newApiKey();
    const run = (args: string[], env: Record<string, string>) => petctl(args, { env: { PETCTL_API_KEY: ciKey, ...env } });
    for (const [args, env] of [
      [['pets', 'list'], { PETCTL_BASE_URL: ci.baseUrl }],
      [['--base-url', ci.baseUrl, 'pets', 'list'], {}],
      [['api', '/pets'], { PETCTL_BASE_URL: ci.baseUrl }],
    ] as const) {
      const result = await run([...args], env);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stderr).not.toContain('no_profile');
    }
    expect(ci.requests).toHaveLength(3);
    for (const request of ci.requests) expect(request.headers.authorization).toBe(`Bearer ${ciKey}`);
    expect(production.requests).toHaveLength(0);
    expect(staging.requests).toHaveLength(0);
    expect(sandboxRequests()).toEqual([]);
  });

  it('auth status and -v say where each came from, and that no profile is used', async (t) => {
    const { petctl } = await setup(t);
    const ci = await startScriptedServer(json(200, [PET], { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59' }));
    t.onTestFinished(() => ci.close());
    const ciKey = newApiKey();
    const mask = `****${ciKey.slice(-4)}`;
    const env = { PETCTL_API_KEY: ciKey, PETCTL_BASE_URL: ci.baseUrl };

    const status = await petctl(['auth', 'status'], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('Profile:    none (the base URL and key are given without one)\n');
    expect(status.stdout).toContain(`Base URL:   ${ci.baseUrl} (from PETCTL_BASE_URL)\n`);
    expect(status.stdout).toContain(`API key:    ${mask} (from PETCTL_API_KEY)\n`);
    expect(status.stdout).not.toContain('Stored in');
    expect(JSON.parse((await petctl(['auth', 'status', '-o', 'json'], { env })).stdout)).toMatchObject({
      profile: null,
      profileSource: 'none',
      baseUrl: ci.baseUrl,
      baseUrlSource: 'env',
      key: mask,
      keySource: 'env',
      keyStorage: null,
    });

    const traced = await petctl(['-v', '--base-url', ci.baseUrl, 'pets', 'list'], { env: { PETCTL_API_KEY: ciKey } });
    expect(traced.code, traced.stderr).toBe(0);
    expect(traced.stderr).toContain(`* base URL ${ci.baseUrl} (from --base-url); key ${mask} (from PETCTL_API_KEY); profile none (the base URL and key are given without one)\n`);
  });
});

describe.concurrent('profile add of the first profile', () => {
  it('is used from then on and says so; pets list, which used the sandbox a minute ago, goes to it', async (t) => {
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

    // A second one is added as before, and the first stays in use.
    const second = await petctl(['profile', 'add', 'qa', '--base-url', 'https://qa.example.org/v1']);
    expect(second.stderr).toBe('Profile "qa" added. Store its key with: petctl auth login -p qa\n');
    expect(JSON.parse((await petctl(['profile', 'show', '-o', 'json'])).stdout)).toMatchObject({ name: 'prod', active: true });
  });

  it('is not chosen while other profiles exist and none is chosen', async (t) => {
    const { petctl } = await setup(t);
    const third = await petctl(['profile', 'add', 'qa', '--base-url', 'https://qa.example.org/v1']);
    expect(third.stderr).toBe('Profile "qa" added. Store its key with: petctl auth login -p qa\n');
    expectNoProfile(await petctl(['pets', 'list']), 'production, qa, staging');
  });
});
