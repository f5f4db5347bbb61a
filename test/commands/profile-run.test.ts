import fs from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { type TestContext, describe, expect, it } from 'vitest';
import { profileListRun } from '../../src/commands/profile/list';
import { profileShowRun } from '../../src/commands/profile/show';
import { profileAddRun } from '../../src/commands/profile/add';
import { profileRemoveRun } from '../../src/commands/profile/remove';
import { profileSetRun } from '../../src/commands/profile/set';
import { profileUseRun } from '../../src/commands/profile/use';
import type { Context } from '../../src/context';
import { UsageError } from '../../src/errors';
import { configDirWith, newApiKey } from '../helpers/cli';
import { type FakeContextOptions, fakeContext } from '../helpers/terminal';

function setup(t: Pick<TestContext, 'onTestFinished'>, config?: object) {
  const dir = configDirWith(config);
  const file = path.join(dir, 'config.json');
  return {
    dir,
    file,
    read: () => JSON.parse(fs.readFileSync(file, 'utf8')) as { activeProfile?: string; profiles: Record<string, unknown> },
    run: (options: FakeContextOptions = {}) => fakeContext(t, { ...options, env: { PETCTL_CONFIG_DIR: dir, ...options.env } }),
  };
}

const KEY = newApiKey();
const TWO = {
  activeProfile: 'production',
  profiles: { production: { baseUrl: 'https://api.example.org/v1', apiKey: KEY }, staging: { baseUrl: 'https://staging.example.org/v1' } },
};

it.concurrent('profile list: on a terminal: a table with NAME, BASE URL and KEY, * on the active profile, keys masked; piped, TSV; csv; a profile written by hand without a base URL shows none, never the embedded sandbox', async (t) => {
  const { run } = setup(t, TWO);
  const { ctx, io } = run({ stdoutColumns: 100 });
  await profileListRun(ctx);
  expect(stripVTControlCharacters(io.stdout.text())).toBe(
    [
      '   NAME        BASE URL                        KEY',
      '   sandbox     embedded sandbox (in-process)   built-in',
      `*  production  https://api.example.org/v1      ****${KEY.slice(-4)}`,
      '   staging     https://staging.example.org/v1  none',
      '',
    ].join('\n'),
  );
  expect(io.stdout.text()).not.toContain(KEY);
  const piped = run();
  await profileListRun(piped.ctx);
  expect(piped.io.stdout.text()).toBe(
    `\tsandbox\tembedded sandbox (in-process)\tbuilt-in\n*\tproduction\thttps://api.example.org/v1\t****${KEY.slice(-4)}\n\tstaging\thttps://staging.example.org/v1\tnone\n`,
  );
  const csv = run({ globals: { output: 'csv' } });
  await profileListRun(csv.ctx);
  expect(csv.io.stdout.text().split('\n')[0]).toBe('active,name,baseUrl,key');
  const broken = setup(t, { activeProfile: 'broken', profiles: { broken: { baseUrl: 5 } } }).run();
  await profileListRun(broken.ctx);
  expect(broken.io.stdout.text()).toBe('\tsandbox\tembedded sandbox (in-process)\tbuilt-in\n*\tbroken\tnone\tnone\n');
});

it.concurrent('profile show: the profile in use, lines labelled; a named one; overrides; an unknown one is exit 2', async (t) => {
  const { run, file } = setup(t, TWO);
  const { ctx, io } = run();
  await profileShowRun({}, ctx);
  expect(io.stdout.text()).toBe(
    [
      'Profile:    production (active profile)',
      'Base URL:   https://api.example.org/v1 (from the profile)',
      `Stored key: ****${KEY.slice(-4)} (config file)`,
      `Key in use: ****${KEY.slice(-4)} (from the profile)`,
      'Overrides:  none',
      'Rate limit: none seen on this machine in the current window (petctl auth status asks the service)',
      `Config:     ${file}`,
      '',
    ].join('\n'),
  );
  const json = run({ globals: { output: 'json' } });
  await profileShowRun({}, json.ctx);
  expect(JSON.parse(json.io.stdout.text())).toMatchObject({ configFile: file, rateLimit: null });
  // A named profile wins over -p.
  const named = run({ globals: { profile: 'production' } });
  await profileShowRun({ name: 'staging' }, named.ctx);
  expect(named.io.stdout.text()).toContain('Profile:    staging\n');
  expect(named.io.stdout.text()).toContain('Stored key: none: run petctl auth login\n');
  expect(named.io.stdout.text()).toContain('Key in use: none\n');
  const envKey = newApiKey();
  const globals = { baseUrl: 'https://flag.example.org/v1', output: 'json' } as const;
  const overridden = run({ globals, env: { PETCTL_API_KEY: envKey } });
  await profileShowRun({}, overridden.ctx);
  expect(JSON.parse(overridden.io.stdout.text())).toMatchObject({
    name: 'production',
    effectiveBaseUrl: 'https://flag.example.org/v1',
    effectiveKey: `****${envKey.slice(-4)}`,
    keySource: 'env',
    overrides: ['PETCTL_API_KEY overrides the stored key', '--base-url overrides the base URL'],
  });
  await expect(profileShowRun({ name: 'nope' }, run().ctx)).rejects.toMatchObject({
    exitCode: 2,
    code: 'usage_error',
    message: 'unknown profile "nope" (known: sandbox, production, staging)',
  });
});

describe.concurrent('profile add, use, remove', () => {
  it('add writes the normalised URL with no key; use switches; a notice goes to stderr only', async (t) => {
    const { run, read, file, dir } = setup(t);
    const add = run();
    await profileAddRun({ name: 'production', baseUrl: 'HTTPS://API.Example.org:443/v1/' }, add.ctx);
    // The first profile besides the sandbox, while none is chosen, is chosen with it.
    expect(read()).toEqual({ activeProfile: 'production', profiles: { production: { baseUrl: 'https://api.example.org/v1' } } });
    expect(add.io.stdout.text()).toBe('');
    expect(add.io.stderr.text()).toBe('Profile "production" added and now in use (petctl profile use sandbox to go back)\n');
    const second = run();
    await profileAddRun({ name: 'staging', baseUrl: 'https://staging.example.org/v1' }, second.ctx);
    expect(read().activeProfile).toBe('production');
    expect(second.io.stderr.text()).toBe('Profile "staging" added. Store its key with: petctl auth login -p staging\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);

    const use = run({ env: { PETCTL_PROFILE: 'sandbox' } });
    await profileUseRun({ name: 'production' }, use.ctx);
    expect(read().activeProfile).toBe('production');
    expect(use.io.stderr.text()).toBe('Active profile: production\nwarning: PETCTL_PROFILE=sandbox is set and takes precedence while it is\n');
  });

  it('remove of a keyed profile off a terminal refuses without --yes; with it, none is chosen after', async (t) => {
    const { run, read } = setup(t, TWO);
    const refused = run();
    const error = await profileRemoveRun({ name: 'production', yes: false }, refused.ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 2, code: 'confirmation_required', hint: 'to go ahead without the question: petctl profile remove production --yes' });
    expect(read()).toEqual(TWO);
    expect(refused.io.stderr.text()).toBe('');
    const { ctx, io } = run();
    await profileRemoveRun({ name: 'production', yes: true }, ctx);
    expect(read()).toEqual({ profiles: { staging: { baseUrl: 'https://staging.example.org/v1' } } });
    expect(io.stderr.text()).toBe('Profile "production" removed. No profile is chosen now: choose one with petctl profile use <name>.\n');
    // A profile without a key needs no --yes.
    const last = run();
    await profileRemoveRun({ name: 'staging', yes: false }, last.ctx);
    expect(last.io.stderr.text()).toBe('Profile "staging" removed.\n');
  });

  // Each rule is test/config/'s (profiles.test.ts, url-check.test.ts); here the commands stop on it, writing nothing.
  const [HTTP, HTTPS] = ['http://api.example.org/v1', 'https://api.example.org/v1'];
  it.for([
    { action: 'remove the sandbox', attempt: (ctx: Context) => profileRemoveRun({ name: 'sandbox', yes: false }, ctx) },
    { action: 'add http:// to a remote host', attempt: (ctx: Context) => profileAddRun({ name: 'p', baseUrl: 'http://example.org/v1' }, ctx) },
    { action: 'set nothing', attempt: (ctx: Context) => profileSetRun({ name: 'production' }, ctx) },
    { action: 'set http:// to a remote host', attempt: (ctx: Context) => profileSetRun({ name: 'production', baseUrl: HTTP }, ctx) },
    { action: 'set the sandbox', attempt: (ctx: Context) => profileSetRun({ name: 'sandbox', baseUrl: HTTPS }, ctx) },
    { action: 'set an unknown profile', attempt: (ctx: Context) => profileSetRun({ name: 'nope', baseUrl: HTTPS }, ctx) },
  ])('refuses to $action (exit 2), changing nothing', async ({ attempt }, t) => {
    const { run, read } = setup(t, TWO);
    const { ctx, io } = run();
    const error = await attempt(ctx).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ exitCode: 2, code: 'usage_error' });
    expect(read()).toEqual(TWO);
    expect(io.stdout.text()).toBe('');
  });
});

describe.concurrent('a profile with a state URL (Redis)', () => {
  const SECRET = 'hunter2-but-longer';
  const SHARED = {
    activeProfile: 'shelters',
    profiles: {
      shelters: { baseUrl: 'https://api.example.org/v1', apiKey: KEY, stateUrl: `redis://:${SECRET}@cache.example.org:6379/0` },
      staging: { baseUrl: 'https://staging.example.org/v1' },
    },
  };

  it('profile list adds a STATE STORE column, and profile show the store, the password masked', async (t) => {
    const { run } = setup(t, SHARED);
    const { ctx, io } = run({ stdoutColumns: 140 });
    await profileListRun(ctx);
    const lines = stripVTControlCharacters(io.stdout.text()).split('\n');
    expect(lines[0]).toMatch(/NAME +BASE URL +KEY +STATE STORE$/);
    expect(lines[2]).toMatch(/shelters .* redis:\/\/:\*\*\*\*@cache\.example\.org:6379\/0$/);
    expect(lines[3]).toMatch(/staging .* local$/);
    expect(io.stdout.text()).not.toContain(SECRET);
    const shown = run();
    await profileShowRun({}, shown.ctx);
    expect(shown.io.stdout.text()).toContain('State store: redis://:****@cache.example.org:6379/0 (profile; password in the URL)\n');
    expect(shown.io.stdout.text()).not.toContain(SECRET);
    const overridden = run({ env: { PETCTL_STATE_URL: 'rediss://other.example.org:6380/2' }, globals: { output: 'json' } });
    await profileShowRun({}, overridden.ctx);
    const object = JSON.parse(overridden.io.stdout.text());
    expect(object).toMatchObject({ stateUrl: 'rediss://other.example.org:6380/2', stateUrlSource: 'env' });
    expect(object.overrides).toContain('PETCTL_STATE_URL overrides the state store');
  });

  it('profile add stores --state-url, and warns when a password would go over plain redis:// off this machine', async (t) => {
    const { run, read } = setup(t);
    const { ctx, io } = run();
    await profileAddRun({ name: 'far', baseUrl: 'https://api.example.org/v1', stateUrl: `redis://:${SECRET}@cache.example.org:6379/0` }, ctx);
    expect(read().profiles.far).toEqual({ baseUrl: 'https://api.example.org/v1', stateUrl: `redis://:${SECRET}@cache.example.org:6379/0` });
    expect(io.stderr.text()).toContain("warning: redis:// sends the state store's password unencrypted; prefer rediss://");
    expect(io.stderr.text()).not.toContain(SECRET);
    const near = run();
    await profileAddRun({ name: 'near', baseUrl: 'https://api.example.org/v1', stateUrl: `redis://:${SECRET}@127.0.0.1:6379/0` }, near.ctx);
    await profileAddRun({ name: 'tls', baseUrl: 'https://api.example.org/v1', stateUrl: `rediss://:${SECRET}@cache.example.org:6380/0` }, near.ctx);
    expect(near.io.stderr.text()).not.toContain('warning');
  });
});

it.concurrent('profile set: changes the base URL and keeps the key, every other field and the file mode 0600; then a state URL, keeping the rest', async (t) => {
  const { run, read, file } = setup(t, { ...TWO, profiles: { ...TWO.profiles, production: { ...TWO.profiles.production, note: 'kept' } } });
  const { ctx, io } = run();
  await profileSetRun({ name: 'production', baseUrl: 'https://api2.example.org/v1/' }, ctx);
  expect(read().profiles.production).toEqual({ baseUrl: 'https://api2.example.org/v1', apiKey: KEY, note: 'kept' });
  expect(read().activeProfile).toBe('production');
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(io.stdout.text()).toBe('');
  expect(io.stderr.text()).toBe('Profile "production" changed: base URL https://api2.example.org/v1; its key is kept.\n');
  expect(io.stderr.text()).not.toContain(KEY);
  await profileSetRun({ name: 'production', stateUrl: 'redis://:s3cret@127.0.0.1:6379/0' }, run().ctx);
  expect(read().profiles.production).toEqual({ baseUrl: 'https://api2.example.org/v1', apiKey: KEY, note: 'kept', stateUrl: 'redis://:s3cret@127.0.0.1:6379/0' });
});

