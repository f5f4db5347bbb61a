import { describe, expect, it } from 'vitest';
import { maskKey, requireKey, resolveProfileName, type ResolvedTarget } from '../../src/config/target';
import { openProfileStore, SANDBOX_DEFAULT_KEY, type ProfileStore } from '../../src/config/profiles';
import { NotConfiguredError, PetctlError, UsageError } from '../../src/errors';
import { thrown } from '../helpers/thrown';
import { SANDBOX_DATA, target, tempPaths, tempStore } from './temp-config';

const PROD_KEY = 'sk_prod_0123456789abcdef';

/** sandbox (chosen unless told; `active: null`: none chosen), production (with a key), staging (without). */
async function configuredStore(options: { active?: string | null; sandboxKey?: string } = {}): Promise<ProfileStore> {
  const store = await openProfileStore(tempPaths());
  await store.add('production', 'https://api.example.org/v1');
  await store.setKey('production', PROD_KEY);
  await store.add('staging', 'https://staging.example.org/v1');
  if (options.sandboxKey) await store.setKey('sandbox', options.sandboxKey);
  if (options.active !== null) await store.use(options.active ?? 'sandbox');
  return store;
}

describe('resolveProfileName', () => {
  it.each([
    ['prod', {}, '--profile'],
    [undefined, { PETCTL_PROFILE: 'qa' }, 'PETCTL_PROFILE'],
  ] as const)('an unknown profile (%s %j) is a usage error (exit 2), naming it, its source and the known ones', async (profileFlag, env, from) => {
    const store = await configuredStore();
    const error = thrown(() => resolveProfileName(store, { profileFlag, env }), UsageError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(`unknown profile "${profileFlag ?? env.PETCTL_PROFILE}" from ${from} (known: sandbox, production, staging)`);
    expect(error.hint).toBe(`add it with petctl profile add ${profileFlag ?? env.PETCTL_PROFILE} --base-url <url>`);
  });

  it('stops with no_profile (exit 2) when other profiles exist and none is chosen, naming them', async () => {
    const store = await configuredStore({ active: null });
    const error = thrown(() => resolveProfileName(store, { env: {} }), PetctlError);
    expect({ exitCode: error.exitCode, code: error.code, hint: error.hint }).toEqual({ exitCode: 2, code: 'no_profile', hint: undefined });
    expect(error.message).toBe(
      'no profile chosen; petctl has profiles production, staging. Choose one with petctl profile use <name> or -p <name> (-p sandbox for the built-in sandbox)',
    );
    // Naming one chooses it, the sandbox included.
    expect(resolveProfileName(store, { profileFlag: 'sandbox', env: {} })).toEqual({ name: 'sandbox', source: 'flag' });
    expect(resolveProfileName(store, { env: { PETCTL_PROFILE: 'staging' } })).toEqual({ name: 'staging', source: 'env' });
  });

  it('an active profile removed by hand is reported, not switched, and is an unknown profile too (exit 2)', async () => {
    const { store } = await tempStore({ activeProfile: 'gone', profiles: {} });
    // The store reports it as it is rather than switching on its own.
    expect(store.activeName()).toBe('gone');
    expect(store.get('gone')).toBeUndefined();
    const error = thrown(() => resolveProfileName(store, { env: {} }), UsageError);
    expect(error).toMatchObject({ exitCode: 2, code: 'usage_error' });
    expect(error.message).toMatch(/"gone" from the active profile/);
  });
});

describe('resolveTarget', () => {
  type Options = { active?: string; sandboxKey?: string; profileFlag?: string; baseUrlFlag?: string; env?: NodeJS.ProcessEnv };
  it.each<[string, Options, Partial<ResolvedTarget>]>([
    ['fresh sandbox: in-process service with the default key', {}, { profile: 'sandbox', profileSource: 'active', baseUrl: undefined, baseUrlSource: 'sandbox', apiKey: SANDBOX_DEFAULT_KEY, keySource: 'sandbox-default', keyStorage: undefined, identity: `sandbox:${SANDBOX_DATA}` }],
    ['sandbox with a stored key', { sandboxKey: 'my-sandbox-key' }, { profile: 'sandbox', baseUrlSource: 'sandbox', apiKey: 'my-sandbox-key', keySource: 'profile', keyStorage: 'config file' }],
    ['PETCTL_API_KEY beats the sandbox key', { sandboxKey: 'my-sandbox-key', env: { PETCTL_API_KEY: 'env-key' } }, { profile: 'sandbox', apiKey: 'env-key', keySource: 'env', keyStorage: 'config file' }],
    ['sandbox pointed elsewhere by PETCTL_BASE_URL keeps its key', { env: { PETCTL_BASE_URL: 'http://127.0.0.1:9000/v1/' } }, { profile: 'sandbox', baseUrl: 'http://127.0.0.1:9000/v1', baseUrlSource: 'env', apiKey: SANDBOX_DEFAULT_KEY, keySource: 'sandbox-default' }],
    ['the active profile (an empty PETCTL_PROFILE is unset)', { active: 'production', env: { PETCTL_PROFILE: '' } }, { profile: 'production', profileSource: 'active', activeProfile: 'production', baseUrl: 'https://api.example.org/v1', baseUrlSource: 'profile', apiKey: PROD_KEY, keySource: 'profile', keyStorage: 'config file', identity: 'https://api.example.org/v1' }],
    ['-p picks a profile other than the active one', { profileFlag: 'production' }, { profile: 'production', profileSource: 'flag', activeProfile: 'sandbox', baseUrl: 'https://api.example.org/v1', apiKey: PROD_KEY }],
    ['PETCTL_PROFILE picks a profile', { env: { PETCTL_PROFILE: 'production' } }, { profile: 'production', profileSource: 'env', apiKey: PROD_KEY }],
    ['-p beats PETCTL_PROFILE and the active profile', { active: 'production', profileFlag: 'sandbox', env: { PETCTL_PROFILE: 'staging' } }, { profile: 'sandbox', profileSource: 'flag' }],
    ['PETCTL_API_KEY beats the stored key', { profileFlag: 'production', env: { PETCTL_API_KEY: 'env-key' } }, { apiKey: 'env-key', keySource: 'env', keyStorage: 'config file' }],
    ['an empty PETCTL_API_KEY is unset', { profileFlag: 'production', env: { PETCTL_API_KEY: '' } }, { apiKey: PROD_KEY, keySource: 'profile' }],
    ['a profile without a key gets none (and no sandbox default)', { profileFlag: 'staging' }, { profile: 'staging', baseUrl: 'https://staging.example.org/v1', apiKey: undefined, keySource: undefined, keyStorage: undefined }],
    ['a profile without a key takes PETCTL_API_KEY', { profileFlag: 'staging', env: { PETCTL_API_KEY: 'env-key' } }, { apiKey: 'env-key', keySource: 'env', keyStorage: undefined }],
    ['PETCTL_BASE_URL beats the profile', { profileFlag: 'production', env: { PETCTL_BASE_URL: 'https://eu.example.org/v1' } }, { baseUrl: 'https://eu.example.org/v1', baseUrlSource: 'env', apiKey: PROD_KEY, keySource: 'profile' }],
    ['--base-url beats PETCTL_BASE_URL', { profileFlag: 'production', baseUrlFlag: 'http://[::1]:8080/v1/', env: { PETCTL_BASE_URL: 'https://eu.example.org/v1' } }, { baseUrl: 'http://[::1]:8080/v1', baseUrlSource: 'flag' }],
    ['--base-url replaces the in-process sandbox', { baseUrlFlag: 'http://localhost:3000' }, { profile: 'sandbox', baseUrl: 'http://localhost:3000', baseUrlSource: 'flag', keySource: 'sandbox-default', identity: 'http://localhost:3000' }],
    ['an empty PETCTL_BASE_URL is unset', { profileFlag: 'production', env: { PETCTL_BASE_URL: '' } }, { baseUrl: 'https://api.example.org/v1', baseUrlSource: 'profile' }],
  ])('%s', async (_name, { active, sandboxKey, profileFlag, baseUrlFlag, env }, expected) => {
    const store = await configuredStore({ active, sandboxKey });
    expect(target(store, { profileFlag, baseUrlFlag, env })).toMatchObject(expected);
  });

  it.each([
    [{ baseUrlFlag: 'http://api.example.org/v1' }, /^--base-url .*clear text/],
    [{ env: { PETCTL_BASE_URL: 'http://api.example.org/v1' } }, /^PETCTL_BASE_URL .*clear text/],
    [{ env: { PETCTL_BASE_URL: 'ftp://api.example.org' } }, /^PETCTL_BASE_URL must use https/],
    // A key that cannot go in a header, never echoed.
    [{ env: { PETCTL_API_KEY: 'sk live s3cret' } }, /^PETCTL_API_KEY contains spaces/],
    [{ profileFlag: '' }, /^--profile needs a profile name/],
  ])('refuses a bad profile name, base URL or key from %j', async (options, message) => {
    const store = await configuredStore();
    const error = thrown(() => target(store, options), UsageError);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('s3cret');
  });

  it.each([
    // none chosen among several; → the profile used (undefined: none), or no_profile
    [{ env: { PETCTL_BASE_URL: 'https://ci.example.org/v1', PETCTL_API_KEY: 'ci-key' } }, { profile: undefined, profileSource: 'none', baseUrlSource: 'env', keySource: 'env' }],
    [{ baseUrlFlag: 'https://ci.example.org/v1', env: { PETCTL_API_KEY: 'ci-key' } }, { profile: undefined, profileSource: 'none', baseUrlSource: 'flag', keySource: 'env' }],
    [{ env: { PETCTL_BASE_URL: 'https://ci.example.org/v1', PETCTL_API_KEY: 'ci-key', PETCTL_STATE_URL: 'redis://ci:6379/0' } }, { profile: undefined, stateUrl: 'redis://ci:6379/0' }],
    [{ profileFlag: 'staging', env: { PETCTL_BASE_URL: 'https://ci.example.org/v1', PETCTL_API_KEY: 'ci-key' } }, { profile: 'staging', profileSource: 'flag' }],
    [{ env: { PETCTL_API_KEY: 'ci-key' } }, 'no_profile'],
    [{ env: { PETCTL_BASE_URL: 'https://ci.example.org/v1' } }, 'no_profile'],
    [{ env: { PETCTL_BASE_URL: 'https://ci.example.org/v1', PETCTL_API_KEY: '' } }, 'no_profile'],
  ] as const)('none chosen: the environment names the whole target or not, %j', async (options, expected) => {
    const store = await configuredStore({ active: null });
    const resolve = () => target(store, options);
    if (expected === 'no_profile') expect(thrown(resolve, PetctlError)).toMatchObject({ code: 'no_profile', exitCode: 2 });
    else expect(resolve()).toMatchObject({ ...expected, identity: expect.stringMatching(/^https:\/\/ci\.example\.org\/v1$/) });
  });

  it('reports a hand-edited profile whose base URL or key is unusable as not configured', async () => {
    const { store } = await tempStore({
      profiles: {
        plain: { baseUrl: 'http://api.example.org/v1' },
        nourl: { apiKey: 'k3y' },
        badkey: { baseUrl: 'https://api.example.org/v1', apiKey: 'two words' },
      },
    });
    for (const [profileFlag, message] of [
      ['plain', /^the base URL of profile "plain" uses http:\/\//],
      ['nourl', /^profile "nourl" has no base URL/],
      ['badkey', /^the API key stored in profile "badkey" contains spaces/],
    ] as const) {
      const error = thrown(() => target(store, { profileFlag }), NotConfiguredError);
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain('two words');
    }
    // Overriding what is broken makes the profile usable.
    expect(target(store, { profileFlag: 'nourl', baseUrlFlag: 'https://ok.example.org' }).apiKey).toBe('k3y');
    expect(target(store, { profileFlag: 'badkey', env: { PETCTL_API_KEY: 'good' } }).apiKey).toBe('good');
  });
});

it.each([
  ['tells how to log in to the active profile', 'staging', { env: {} }, 'run petctl auth login'],
  ['names the profile when it is not the active one (-p)', 'production', { profileFlag: 'staging', env: {} }, 'run petctl auth login -p staging'],
  ['names the profile when it is not the active one (PETCTL_PROFILE)', 'production', { env: { PETCTL_PROFILE: 'staging' } }, 'run petctl auth login -p staging'],
])('requireKey %s', async (_title, active, options, hint) => {
  const store = await configuredStore({ active });
  const error = thrown(() => requireKey(target(store, options)), NotConfiguredError);
  expect(error).toMatchObject({ exitCode: 4, message: 'no API key for profile "staging"', hint });
});

it('maskKey shows the last 4 characters of keys of 10 or more, nothing of shorter ones, and never the length', () => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  for (let length = 0; length <= alphabet.length; length++) {
    const key = alphabet.slice(0, length);
    const masked = maskKey(key);
    expect(masked.startsWith('****'), key).toBe(true);
    const shown = masked.slice(4);
    expect(shown.length, key).toBe(length >= 10 ? 4 : 0);
    expect(key.endsWith(shown), key).toBe(true);
  }
});
