import type { PetctlPaths } from '../../src/config/paths';
import { expect, it } from 'vitest';
import { describeStateUrl, maskStateUrl, stateStoreAddress, validateStateUrl } from '../../src/config/state-url';
import { NotConfiguredError, UsageError } from '../../src/errors';
import { thrown } from '../helpers/thrown';
import { modeOf, readConfigFile, target, tempStore } from './temp-config';

const SECRET = 'p@ss:w/rd-1234';
const WITH_PASSWORD = `redis://:${encodeURIComponent(SECRET)}@cache.example.org:6380/2`;
const IN_USER_SLOT = `redis://${encodeURIComponent(SECRET)}@cache.example.org:6379/0`;

it.each([
  ['redis://cache.example.org:6379/0', 'redis://cache.example.org:6379/0'],
  ['redis://cache.example.org', 'redis://cache.example.org'],
  ['redis://cache.example.org/', 'redis://cache.example.org'],
  ['REDIS://cache.example.org:6379/0', 'redis://cache.example.org:6379/0'],
  ['rediss://cache.example.org:6380/1', 'rediss://cache.example.org:6380/1'],
  ['redis://:secret@127.0.0.1:6379', 'redis://:secret@127.0.0.1:6379'],
  ['redis://[::1]:6379/0', 'redis://[::1]:6379/0'],
])('validateStateUrl accepts %s', (raw, expected) => {
  expect(validateStateUrl(raw)).toBe(expected);
});

it.each([
  ['not a url', 'is not an absolute URL'],
  ['https://cache.example.org', 'must use redis:// or rediss://'],
  ['redis://', 'has no host'],
  ['redis://host:6379/0?tls=true', 'must not contain a query'],
  ['redis://host:6379/zero', 'database number'],
  ['redis://host:6379/0/1', 'database number'],
  // A stray % (typed as it is in a password), and an escape that is not UTF-8.
  ['redis://x%zz@host:6379/0', 'has a user name or password that is not valid percent-encoding'],
  ['redis://x%e9@host:6379/0', 'has a user name or password that is not valid percent-encoding'],
])('validateStateUrl refuses %s with a usage error that does not echo it', (raw, message) => {
  const error = thrown(() => validateStateUrl(raw.replace('host', ':topsecret@host'), '--state-url'), UsageError);
  expect(error.message).toContain(message);
  expect(error.message).toMatch(/^--state-url /);
  expect(error.message).not.toContain('topsecret');
});

it('a state URL: decodes the password and finds port and database', () => {
  expect(stateStoreAddress(WITH_PASSWORD)).toEqual({ tls: false, host: 'cache.example.org', port: 6380, db: 2, username: undefined, password: SECRET });
  expect(stateStoreAddress('rediss://user:pw@[::1]')).toEqual({ tls: true, host: '::1', port: 6379, db: 0, username: 'user', password: 'pw' });
  // Written in the user-name slot, it is the password, as redis-cli and ioredis read it.
  expect(stateStoreAddress(IN_USER_SLOT)).toMatchObject({ username: undefined, password: SECRET });
});

it('a state URL: its password masked (either slot) for profile show and list, all credentials dropped for warnings', () => {
  expect(maskStateUrl(WITH_PASSWORD)).toBe('redis://:****@cache.example.org:6380/2');
  expect(maskStateUrl('redis://cache.example.org:6379/0')).toBe('redis://cache.example.org:6379/0');
  expect(describeStateUrl(WITH_PASSWORD)).toBe('redis://cache.example.org:6380/2');
  expect(describeStateUrl('rediss://user:pw@[::1]')).toBe('rediss://[::1]:6379/0');
  expect(maskStateUrl(IN_USER_SLOT)).toBe('redis://****@cache.example.org:6379/0');
  expect(maskStateUrl('redis://reader:pw@cache.example.org:6379/0')).toBe('redis://reader:****@cache.example.org:6379/0');
  expect(describeStateUrl(IN_USER_SLOT)).toBe('redis://cache.example.org:6379/0');
});

const API = 'https://api.example.org/v1';
const shelters = (paths: PetctlPaths) => (readConfigFile(paths) as { profiles: { shelters: unknown } }).profiles.shelters;

it('a profile\'s state URL: stored 0600, resolved, password apart; PETCTL_STATE_URL wins; bad ones refused', async () => {
  const { paths, store } = await tempStore();
  await store.add('shelters', API, { stateUrl: WITH_PASSWORD });
  expect(store.get('shelters')?.stateUrl).toBe(WITH_PASSWORD);
  expect(shelters(paths)).toEqual({ baseUrl: API, stateUrl: WITH_PASSWORD });
  expect(target(store, { profileFlag: 'shelters' })).toMatchObject({ stateUrl: WITH_PASSWORD, stateUrlSource: 'profile' });
  await store.add('plain', API);
  const env = { PETCTL_STATE_URL: 'redis://127.0.0.1:6379/1' };
  const fromEnv = { stateUrl: env.PETCTL_STATE_URL, stateUrlSource: 'env' };
  expect(target(store, { profileFlag: 'shelters', env })).toMatchObject(fromEnv);
  expect(target(store, { profileFlag: 'plain', env })).toMatchObject(fromEnv);
  const unset = { PETCTL_STATE_URL: '' };
  expect(target(store, { profileFlag: 'shelters', env: unset })).toMatchObject({ stateUrlSource: 'profile' });
  expect(target(store, { profileFlag: 'plain', env: unset })).toMatchObject({ stateUrl: undefined, stateUrlSource: undefined });
  const wrong = { PETCTL_STATE_URL: 'http://x' };
  expect(() => target(store, { profileFlag: 'plain', env: wrong })).toThrow(/^PETCTL_STATE_URL must use redis:\/\//);
  await store.update('shelters', { statePassword: SECRET });
  await store.update('shelters', { stateUrl: 'rediss://cache.example.org:6380/0' });
  expect(shelters(paths)).toEqual({ baseUrl: API, stateUrl: 'rediss://cache.example.org:6380/0', statePassword: SECRET });
  expect(modeOf(paths.configFile)).toBe(0o600);
  const adding = store.add('bad', API, { stateUrl: 'memcached://x' });
  await expect(adding).rejects.toThrow(/^--state-url must use redis:\/\//);
  expect(store.get('bad')).toBeUndefined();
  // A hand edit that broke it is reported (exit 4).
  const edited = await tempStore({ profiles: { edited: { baseUrl: API, stateUrl: 'redis://ok/not-a-db' } } });
  expect(() => target(edited.store, { profileFlag: 'edited' })).toThrow(NotConfiguredError);
});

it('the state password: PETCTL_STATE_PASSWORD, else the stored one (for its own URL), else the URL\'s', async () => {
  const { store } = await tempStore();
  await store.add('shelters', 'https://api.example.org/v1', { stateUrl: 'redis://cache.example.org:6379/0', statePassword: 'stored-pw' });
  await store.add('inline', 'https://api.example.org/v1', { stateUrl: WITH_PASSWORD });
  const resolve = (profileFlag: string, env: NodeJS.ProcessEnv) => target(store, { profileFlag, env });
  expect(resolve('shelters', {})).toMatchObject({ statePassword: 'stored-pw', statePasswordSource: 'profile' });
  expect(resolve('shelters', { PETCTL_STATE_PASSWORD: 'env-pw' })).toMatchObject({ statePassword: 'env-pw', statePasswordSource: 'env' });
  expect(resolve('inline', {})).toMatchObject({ statePassword: SECRET, statePasswordSource: 'url' });
  expect(resolve('inline', { PETCTL_STATE_PASSWORD: 'env-pw' })).toMatchObject({ statePassword: 'env-pw', statePasswordSource: 'env' });
  // Another server named by PETCTL_STATE_URL never gets the stored password.
  expect(resolve('shelters', { PETCTL_STATE_URL: 'redis://elsewhere.example.org:6379/0' })).toMatchObject({ statePassword: undefined, statePasswordSource: undefined });
  // No state store, no password, whatever the environment says.
  await store.add('plain', 'https://api.example.org/v1');
  expect(resolve('plain', { PETCTL_STATE_PASSWORD: 'env-pw' })).toMatchObject({ stateUrl: undefined, statePassword: undefined });
});
