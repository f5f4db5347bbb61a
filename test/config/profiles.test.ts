import fs from 'node:fs';
import Conf from 'conf';
import { expect, it } from 'vitest';
import { SANDBOX_PROFILE } from '../../src/config/config-file';
import { openProfileStore } from '../../src/config/profiles';
import { UsageError } from '../../src/errors';
import { readConfigFile, tempPaths, tempStore } from './temp-config';

/** The UsageError `promise` is refused with. */
const usageError = (promise: Promise<unknown>): Promise<UsageError> =>
  promise.then(() => expect.unreachable(), (error: unknown) => {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  });

const PROD = 'https://api.example.org/v1';
const names = (store: { list(): Array<{ name: string }> }) => store.list().map((p) => p.name);

it('a fresh install: has only the sandbox, active, without a base URL or key; reading creates nothing', async () => {
  const { paths, store } = await tempStore();
  expect(store.activeName()).toBe(SANDBOX_PROFILE);
  expect(store.list()).toEqual([{ name: 'sandbox', baseUrl: undefined, apiKey: undefined, builtIn: true }]);
  expect(store.get('sandbox')).toEqual({ name: 'sandbox', apiKey: undefined, builtIn: true });
  expect(store.get('production')).toBeUndefined();
  expect(fs.existsSync(paths.dir)).toBe(false);
  // Nor does reading an existing file touch it.
  await store.add('prod', PROD);
  const past = new Date(Date.now() - 60_000);
  fs.utimesSync(paths.configFile, past, past);
  const statBefore = fs.statSync(paths.configFile);
  const reopened = await openProfileStore(paths);
  reopened.list();
  reopened.activeName();
  const statAfter = fs.statSync(paths.configFile);
  // A rewrite (conf renames a temporary file over it) would change both.
  expect([statAfter.ino, statAfter.mtimeMs]).toEqual([statBefore.ino, statBefore.mtimeMs]);
});

// The documented shape, tab-indented as conf writes it, which conf itself reads back.
it('adds, lists, uses, stores keys and removes, writing each step in the documented shape', async () => {
  const { paths, store } = await tempStore();
  await store.add('production', PROD);
  await store.setKey('production', 'sk_live_0123456789abcdef');
  await store.add('eu.staging', 'https://staging.example.org/v1/');
  await store.setKey('sandbox', 'my-sandbox-key');
  await store.use('production');
  expect(names(store)).toEqual(['sandbox', 'eu.staging', 'production']);
  const staging = { name: 'eu.staging', baseUrl: 'https://staging.example.org/v1', builtIn: false };
  expect(store.get('eu.staging')).toEqual(staging);
  const profiles = {
    production: { baseUrl: PROD, apiKey: 'sk_live_0123456789abcdef' },
    'eu.staging': { baseUrl: 'https://staging.example.org/v1' },
    sandbox: { apiKey: 'my-sandbox-key' },
  };
  expect(readConfigFile(paths)).toEqual({ activeProfile: 'production', profiles });
  // No newline at the end.
  expect(fs.readFileSync(paths.configFile, 'utf8')).toBe(JSON.stringify(readConfigFile(paths), undefined, '\t'));
  const conf = new Conf<Record<string, unknown>>({ cwd: paths.dir, configName: 'config', accessPropertiesByDotNotation: false });
  expect(conf.path).toBe(paths.configFile);
  expect(conf.get('profiles')).toEqual(profiles);
  const reopened = await openProfileStore(paths);
  expect([reopened.activeName(), reopened.get('production')]).toMatchObject(['production', profiles.production]);
  expect(await reopened.clearKey('production')).toBe('config file');
  expect(reopened.get('production')).toEqual({ name: 'production', baseUrl: PROD, builtIn: false });
  await reopened.remove('eu.staging');
  const last = await openProfileStore(paths);
  expect([names(last), last.activeName()]).toEqual([['sandbox', 'production'], 'production']);
});

it('removing the chosen profile leaves none chosen while others exist, and the sandbox once none is left', async () => {
  const { paths, store } = await tempStore();
  await store.add('production', PROD);
  await store.add('staging', 'https://staging.example.org/v1');
  await store.use('production');
  await store.remove('production');
  expect(store.activeName()).toBeUndefined();
  expect(readConfigFile(paths)).toEqual({ profiles: { staging: { baseUrl: 'https://staging.example.org/v1' } } });
  await store.remove('staging');
  expect((await openProfileStore(paths)).activeName()).toBe('sandbox');
});

it('profile use sandbox chooses the sandbox explicitly: the first profile added after it (useIfFirst) is not chosen', async () => {
  const { paths, store } = await tempStore();
  await store.use('sandbox');
  expect(await store.add('production', PROD, {}, { useIfFirst: true })).toMatchObject({ nowActive: false });
  expect((await openProfileStore(paths)).activeName()).toBe('sandbox');
});

it('refuses to add an existing profile and suggests profile set, which keeps the key', async () => {
  const { paths, store } = await tempStore();
  await store.add('production', PROD);
  await store.setKey('production', 'sk_live_0123456789abcdef');
  const error = await usageError(store.add('production', 'https://other.example.org/v1'));
  expect(error.message).toContain('"production" already exists');
  expect(error.hint).toBe('to change it and keep its key, run petctl profile set production --base-url <url>');
  const kept = { baseUrl: PROD, apiKey: 'sk_live_0123456789abcdef' };
  expect((await openProfileStore(paths)).get('production')).toMatchObject(kept);
});

it.each(['use', 'remove', 'setKey', 'clearKey'] as const)('%s of an unknown profile lists the known ones', async (verb) => {
  const { store } = await tempStore();
  await store.add('production', PROD);
  const error = await usageError(verb === 'setKey' ? store.setKey('prod', 'k3y') : store[verb]('prod'));
  expect(error.message).toBe('unknown profile "prod" (known: sandbox, production)');
  expect(store.activeName()).toBeUndefined();
});

const accepted = ['a', 'Prod-2', 'eu.prod_1', 'x'.repeat(64), '.hidden', '__proto__', 'constructor', 'toString'];
it.each(accepted)('accepts the name %j', async (name) => {
  const { paths, store } = await tempStore();
  await store.add(name, PROD);
  await store.setKey(name, 'k3y');
  await store.use(name);
  const reopened = await openProfileStore(paths);
  expect(reopened.get(name)).toEqual({ name, baseUrl: PROD, apiKey: 'k3y', builtIn: false });
  expect([names(reopened), reopened.activeName()]).toEqual([['sandbox', name], name]);
  expect(Object.getPrototypeOf(readConfigFile(paths))).toBe(Object.prototype);
});

it.each([
  ...['', 'x'.repeat(65), 'a b', 'a/b', '../etc', 'é', 'a\nb', 'prod:1'].map(
    (name) => [`the name ${JSON.stringify(name)}`, name, PROD, /^invalid profile name/] as const,
  ),
  ['the base URL http:// off loopback', 'production', 'http://api.example.org/v1', /clear text/] as const,
])('refuses %s and writes nothing', async (_title, name, baseUrl, why) => {
  const { paths, store } = await tempStore();
  expect((await usageError(store.add(name, baseUrl))).message).toMatch(why);
  expect(fs.existsSync(paths.dir)).toBe(false);
});

it.each([
  ['', /is empty/],
  ['has space', /spaces/],
  ['trailing-newline\n', /control/],
  ['tab\tkey', /control/],
  ['ключ', /non-ASCII/],
])('refuses the key %j without echoing it', async (key, why) => {
  const { store } = await tempStore();
  const error = await usageError(store.setKey('sandbox', key));
  expect(error.message).toMatch(why);
  if (key !== '') expect(error.message).not.toContain(key);
  expect(store.get('sandbox')?.apiKey).toBeUndefined();
});

it('the built-in sandbox profile: not added, replaced or removed; a key of its own, no base URL', async () => {
  const { paths, store } = await tempStore();
  expect((await usageError(store.add('sandbox', PROD))).message).toMatch(/built-in/);
  expect((await usageError(store.remove('sandbox'))).message).toMatch(/cannot be removed/);
  expect(store.get('sandbox')?.baseUrl).toBeUndefined();
  expect(fs.existsSync(paths.configFile)).toBe(false);
  // Its key, which leaves it the only profile and so the one used; clearing it drops its entry.
  await store.setKey('sandbox', 'my-sandbox-key');
  expect(store.get('sandbox')).toEqual({ name: 'sandbox', apiKey: 'my-sandbox-key', builtIn: true });
  expect(store.activeName()).toBe('sandbox');
  expect(await store.clearKey('sandbox')).toBe('config file');
  expect(readConfigFile(paths)).toEqual({ profiles: {} });
  expect(await store.clearKey('sandbox')).toBeUndefined();
  // A base URL written into its entry by hand is ignored.
  const edited = await tempStore({ profiles: { sandbox: { baseUrl: 'https://evil.example.org', apiKey: 'k3y' } } });
  expect(edited.store.get('sandbox')).toEqual({ name: 'sandbox', apiKey: 'k3y', builtIn: true });
});

it('config.json: keeps what it does not know about', async () => {
  const futureSetting = { colour: 'always' };
  const production = { baseUrl: PROD, region: 'eu' };
  const { paths, store } = await tempStore({ futureSetting, profiles: { production, junk: 42 } });
  expect(names(store)).toEqual(['sandbox', 'production']);
  await store.setKey('production', 'k3y');
  expect(readConfigFile(paths)).toEqual({ futureSetting, profiles: { production: { ...production, apiKey: 'k3y' }, junk: 42 } });
});

it('config.json: refuses to open or overwrite a file that is not JSON', async () => {
  const { paths, store } = await tempStore();
  await store.add('production', PROD);
  fs.writeFileSync(paths.configFile, '{"profiles": {');
  const damaged = { code: 'config_damaged', exitCode: 1, message: expect.stringContaining(`file ${paths.configFile} is damaged`) };
  await expect(openProfileStore(paths)).rejects.toMatchObject(damaged);
  await expect(store.add('staging', 'https://staging.example.org/v1')).rejects.toMatchObject({ code: 'config_damaged', exitCode: 1 });
  expect(fs.readFileSync(paths.configFile, 'utf8')).toBe('{"profiles": {');
});

it('several writers: each re-reads the file before a write, not trusting what it read when opened', async () => {
  const paths = tempPaths();
  const [first, second] = await Promise.all([openProfileStore(paths), openProfileStore(paths)]);
  await first.add('production', PROD);
  await second.add('staging', 'https://staging.example.org/v1');
  // `second` never saw production, yet may use it and now lists it.
  await second.use('production');
  expect(names(second)).toEqual(['sandbox', 'production', 'staging']);
  const reopened = await openProfileStore(paths);
  expect([names(reopened), reopened.activeName()]).toEqual([['sandbox', 'production', 'staging'], 'production']);
});
