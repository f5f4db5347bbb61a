import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, describe, expect, it, vi } from 'vitest';
import { loginRun } from '../../src/commands/auth/login';
import { logoutRun } from '../../src/commands/auth/logout';
import { statusRun } from '../../src/commands/auth/status';
import type { Context } from '../../src/context';
import { InterruptedError, UsageError } from '../../src/errors';
import { configDirWith, expectPetctlHeaders, loopbackPortIsFree, newApiKey, WAIT } from '../helpers/cli';
import { type FakeContextOptions, fakeContext, fakeStdin } from '../helpers/terminal';
import { json, startScriptedServer } from '../helpers/scripted-server';

type T = Pick<TestContext, 'onTestFinished'>;

function storedKeys(dir: string): Record<string, string | undefined> {
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, { apiKey?: string }> };
  return Object.fromEntries(Object.entries(config.profiles).map(([name, entry]) => [name, entry.apiKey]));
}

const STAGING = { profiles: { staging: { baseUrl: 'https://staging.example.org/v1' } } };
const LIMITS = { 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '299', 'x-ratelimit-reset': '1768471260' };
const STORED = 'API key stored for profile "staging". Check it with: petctl auth status';
const OVERRIDDEN = 'warning: PETCTL_API_KEY is set and overrides the stored key until you unset it\n';

/** `2026-01-15 10:01:00` in this process's time zone, written out independently of output/time.ts. */
function localDateTime(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

function run(t: T, dir: string, options: FakeContextOptions = {}) {
  return fakeContext(t, { ...options, env: { PETCTL_CONFIG_DIR: dir, ...options.env } });
}

/** A Context for -p staging whose stdin reads `input` from a pipe. */
const piped = (t: T, dir: string, input: string, options: FakeContextOptions = {}) =>
  run(t, dir, { ...options, stdin: fakeStdin({ input }), globals: { profile: 'staging', ...options.globals } });

const login = (ctx: Context, { withToken = true, verify = false } = {}) => loginRun({ withToken, verify, insecureStorage: true }, ctx);

/** staging's config, and a Context for -p staging whose stdin and stderr are a terminal. */
function onTerminal(t: T, options: FakeContextOptions = {}) {
  const dir = configDirWith(STAGING);
  const stdin = fakeStdin({ tty: true });
  return { dir, stdin, ...run(t, dir, { ...options, stdin, stderrTTY: true, globals: { profile: 'staging', ...options.globals } }) };
}

describe.concurrent('auth login on a terminal', () => {
  it('prompts on stderr, reads the key in raw mode echoing nothing, and stores it; --with-token reads stdin instead, without prompting', async (t) => {
    const key = newApiKey();
    const { dir, stdin, ctx, io } = onTerminal(t);
    const done = login(ctx, { withToken: false });
    await vi.waitFor(() => expect(io.stderr.text()).toBe('API key for profile "staging": '), WAIT);
    expect(stdin.rawModes).toEqual([true]);
    // Typed in pieces, with a typo corrected by backspace.
    stdin.write(key.slice(0, 10));
    stdin.write('X\u007f');
    stdin.write(`${key.slice(10)}\r`);
    await done;
    expect(storedKeys(dir).staging).toBe(key);
    expect(stdin.rawModes).toEqual([true, false]);
    expect(io.stderr.text()).toBe(`API key for profile "staging": \n${STORED} -p staging\n`);
    expect(io.stdout.text()).toBe('');
    const piped = onTerminal(t);
    const withToken = login(piped.ctx);
    piped.stdin.end(`${key}\n`);
    await withToken;
    expect(storedKeys(piped.dir).staging).toBe(key);
    // The terminal's echo is off for it too: a key pasted after --with-token never shows.
    expect(piped.stdin.rawModes).toEqual([true, false]);
    expect(piped.io.stderr.text()).not.toContain('API key for profile');
  });

  it.for([
    ['Ctrl-C at the prompt', 'half-typed\u0003', InterruptedError, {}],
    ['an empty entry is a usage error', '\n', UsageError, { message: 'no API key entered' }],
  ] as const)('%s: nothing stored, raw mode left', async ([, typed, kind, fields], t) => {
    const { dir, stdin, ctx, io } = onTerminal(t);
    const error = login(ctx, { withToken: false }).catch((caught: unknown) => caught);
    await vi.waitFor(() => expect(io.stderr.text()).toContain('API key for profile'), WAIT);
    stdin.write(typed);
    expect(await error).toBeInstanceOf(kind);
    expect(await error).toMatchObject(fields);
    expect(stdin.rawModes).toEqual([true, false]);
    expect(storedKeys(dir).staging).toBeUndefined();
  });

  // PETCTL_NO_INPUT is the same fact: test/terminal.test.ts "the terminal facts".
  it('--no-input on a terminal: a usage error, no prompt, nothing stored', async (t) => {
    const { dir, stdin, ctx, io } = onTerminal(t, { globals: { noInput: true } });
    await expect(login(ctx, { withToken: false })).rejects.toMatchObject({ exitCode: 2, code: 'usage_error', hint: 'echo "$KEY" | petctl auth login --with-token' });
    expect(io.stderr.text()).toBe('');
    expect(stdin.rawModes).toEqual([]);
    expect(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).toBe(JSON.stringify(STAGING));
  });
});

describe.concurrent('auth login from a pipe', () => {
  it('stores the trimmed key in the profile in use (PETCTL_PROFILE), warning when PETCTL_API_KEY overrides it; refuses an unknown profile without writing anything', async (t) => {
    const dir = configDirWith(STAGING);
    const key = newApiKey();
    const { ctx, io } = run(t, dir, { stdin: fakeStdin({ input: `\n  ${key}  \n` }), env: { PETCTL_PROFILE: 'staging', PETCTL_API_KEY: newApiKey() } });
    await login(ctx, { withToken: false });
    expect(storedKeys(dir).staging).toBe(key);
    expect(io.stderr.text()).toBe(`${STORED}\n${OVERRIDDEN}`);
    const none = configDirWith();
    const unknown = piped(t, none, newApiKey(), { globals: { profile: 'nope' } });
    await expect(login(unknown.ctx)).rejects.toMatchObject({ exitCode: 2, code: 'usage_error' });
    expect(fs.existsSync(path.join(none, 'config.json'))).toBe(false);
  });

  it.for([
    { what: 'the same key again', stored: 'sandbox-business', next: 'sandbox-business', words: 'the key for profile staging is unchanged (****ness)' },
    { what: 'two keys that mask alike', stored: 'short-1', next: 'short-2', words: 'replaced the key **** with a different key, also shown as ****, for profile staging' },
  ])('$what: says what became of the stored key', async ({ stored, next, words }, t) => {
    const dir = configDirWith({ profiles: { staging: { ...STAGING.profiles.staging, apiKey: stored } } });
    const { ctx, io } = piped(t, dir, `${next}\n`);
    await login(ctx);
    expect(storedKeys(dir).staging).toBe(next);
    expect(io.stderr.text()).toBe(`${words}\n`);
  });
});

describe.concurrent('auth login checks the key with the service', () => {
  async function served(t: T) {
    const server = await startScriptedServer();
    t.onTestFinished(() => server.close());
    return { server, dir: configDirWith({ profiles: { staging: { baseUrl: server.baseUrl } } }) };
  }

  it("accepted: one GET /pets?limit=1 with the new key, even when PETCTL_API_KEY is set; the plan's limit shown, the key stored", async (t) => {
    const { server, dir } = await served(t);
    server.reply(json(200, [], LIMITS));
    const key = newApiKey();
    const { ctx, io } = piped(t, dir, key, { env: { PETCTL_API_KEY: newApiKey() } });
    await login(ctx, { verify: true });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/v1/pets', query: { limit: '1' } });
    expectPetctlHeaders(server.requests[0]!, key);
    expect(storedKeys(dir).staging).toBe(key);
    expect(io.stderr.text()).toBe(`Key accepted by ${server.baseUrl}: rate limit 300, 299 left.\n${STORED} -p staging\n${OVERRIDDEN}`);
    expect(io.stdout.text()).toBe('');
  });

  it('a 401: "key not accepted", exit 4, nothing stored; then --no-verify sends nothing and stores it', async (t) => {
    const { server, dir } = await served(t);
    server.reply(json(401, { code: 'unauthorized', message: 'unknown API key', status: 401 }, LIMITS));
    const { ctx } = piped(t, dir, newApiKey(), { globals: { retries: 0 } });
    await expect(login(ctx, { verify: true })).rejects.toMatchObject({
      exitCode: 4,
      code: 'unauthorized',
      status: 401,
      message: `key not accepted by ${server.baseUrl}: unknown API key`,
    });
    expect(storedKeys(dir).staging).toBeUndefined();
    const key = newApiKey();
    await login(piped(t, dir, key).ctx);
    expect(server.requests).toHaveLength(1);
    expect(storedKeys(dir).staging).toBe(key);
  });

  it("a service out of reach (the sandbox's port): the key stored, with a warning naming the sandbox", async (t) => {
    // A sandbox is running on this machine: the case cannot be made here.
    if (!(await loopbackPortIsFree(4010))) t.skip();
    const dir = configDirWith({ profiles: { local: { baseUrl: 'http://127.0.0.1:4010/v1' } } });
    const key = newApiKey();
    const { ctx, io } = piped(t, dir, key, { globals: { profile: 'local' } });
    await login(ctx, { verify: true });
    expect(storedKeys(dir).local).toBe(key);
    expect(io.stderr.text()).toMatch(
      /^warning: the key could not be checked \(GET http:\/\/127\.0\.0\.1:4010\/v1\/pets\?limit=1 failed: connection refused: nothing is listening on 127\.0\.0\.1:4010\); storing it unchecked \(is the sandbox running\? start it with petctl sandbox\)\n/,
    );
    expect(io.stderr.text()).toContain('\nAPI key stored for profile "local"');
  });
});

it.concurrent('auth status: checks the key with GET /pets?limit=1 and prints Label: value lines; -o ndjson: one line, naming sources', async (t) => {
  const server = await startScriptedServer(json(200, []));
  t.onTestFinished(() => server.close());
  server.reply(json(200, [], LIMITS));
  const key = newApiKey();
  const dir = configDirWith({ activeProfile: 'staging', profiles: { staging: { baseUrl: server.baseUrl, apiKey: key } } });
  const { ctx, io } = run(t, dir);
  await statusRun(ctx);
  expect(server.requests).toHaveLength(1);
  expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/v1/pets', query: { limit: '1' } });
  expectPetctlHeaders(server.requests[0]!, key);
  expect(io.stdout.text()).toBe(
    [
      'Profile:    staging (active profile)',
      `Base URL:   ${server.baseUrl} (from the profile)`,
      `API key:    ****${key.slice(-4)} (from the profile, in the config file)`,
      'Status:     authenticated (GET /pets?limit=1 answered 200)',
      `Rate limit: 299 of 300 left, resets ${localDateTime(1768471260_000)}`,
      `Config:     ${path.join(dir, 'config.json')}`,
      '',
    ].join('\n'),
  );
  const envKey = newApiKey();
  const env = { PETCTL_PROFILE: 'staging', PETCTL_API_KEY: envKey };
  const piped = run(t, dir, { env, globals: { baseUrl: server.baseUrl, output: 'ndjson' } });
  await statusRun(piped.ctx);
  expect(piped.io.stdout.text()).toMatch(/^[^\n]*\}\n$/);
  expect(JSON.parse(piped.io.stdout.text())).toEqual({
    profile: 'staging',
    profileSource: 'env',
    baseUrl: server.baseUrl,
    baseUrlSource: 'flag',
    key: `****${envKey.slice(-4)}`,
    keySource: 'env',
    keyStorage: null,
    authenticated: true,
    rateLimit: { limit: null, remaining: null, reset: null },
    configFile: path.join(dir, 'config.json'),
  });
});

it.concurrent('auth logout: removes the stored key and keeps the profile; then says there was nothing to remove, and that PETCTL_API_KEY is still in effect', async (t) => {
  const dir = configDirWith({ profiles: { staging: { baseUrl: 'https://staging.example.org/v1', apiKey: newApiKey() } } });
  const { ctx, io } = run(t, dir, { globals: { profile: 'staging' } });
  await logoutRun(ctx);
  expect(storedKeys(dir)).toEqual({ staging: undefined });
  expect(io.stderr.text()).toBe('API key removed from profile "staging".\n');
  expect(io.stdout.text()).toBe('');
  const again = run(t, dir, { globals: { profile: 'staging' }, env: { PETCTL_API_KEY: newApiKey() } });
  await logoutRun(again.ctx);
  expect(again.io.stderr.text()).toBe(
    'Profile "staging" has no stored API key.\nwarning: PETCTL_API_KEY is still set and is used as the API key until you unset it\n',
  );
});
