import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, describe, expect, it } from 'vitest';
import { cliSession, newApiKey, tempDir } from '../helpers/cli';
import { json, startScriptedServer } from '../helpers/scripted-server';
import { openTerminal } from '../helpers/tmux';

/**
 * Keys an admin can tell apart: auth login says which key it replaced, and profile remove asks before
 * dropping one (the question in a real terminal, tmux).
 */

const PRO = 'sandbox-pro';
const BUSINESS = 'sandbox-business';

async function setup(t: Pick<TestContext, 'onTestFinished'>, keys: Record<string, string> = {}) {
  const server = await startScriptedServer(json(200, [], { 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '299', 'x-ratelimit-reset': '1900000000' }));
  const configDir = tempDir();
  t.onTestFinished(() => server.close());
  const configFile = path.join(configDir, 'config.json');
  const profiles = Object.fromEntries(
    ['production', 'staging'].map((name) => [name, { baseUrl: server.baseUrl, ...(keys[name] ? { apiKey: keys[name] } : {}) }]),
  );
  fs.writeFileSync(configFile, JSON.stringify({ activeProfile: 'production', profiles }), { mode: 0o600 });
  const read = () => JSON.parse(fs.readFileSync(configFile, 'utf8')) as { activeProfile?: string; profiles: Record<string, { apiKey?: string }> };
  return { server, configDir, configFile, read, petctl: cliSession({ env: { PETCTL_CONFIG_DIR: configDir } }) };
}

describe.concurrent('auth login says what became of the stored key', () => {
  it('a profile that had a key: "replaced the key ****-pro with ****ness for profile staging", after the check', async (t) => {
    const { petctl, read, server } = await setup(t, { staging: PRO });
    const login = await petctl(['-p', 'staging', 'auth', 'login', '--insecure-storage', '--with-token'], { input: BUSINESS });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toBe('');
    expect(login.stderr).toMatch(/^Key accepted by http:\/\/127\.0\.0\.1:\d+\/v1: rate limit 300, 299 left\.\nreplaced the key \*\*\*\*-pro with \*\*\*\*ness for profile staging\n$/);
    expect(read().profiles.staging?.apiKey).toBe(BUSINESS);
    expect(server.requests).toHaveLength(1);
  });

  // The same key again, and two keys that mask alike, are auth-run.test.ts's.
  it('a key refused by the service replaces nothing and says nothing of a replacement', async (t) => {
    const server = await startScriptedServer(json(401, { code: 'unauthorized', message: 'the API key is not valid' }));
    t.onTestFinished(() => server.close());
    const { petctl, read } = await setup(t, { staging: PRO });
    const refused = await petctl(['-p', 'staging', '--base-url', server.baseUrl, 'auth', 'login', '--insecure-storage', '--with-token'], { input: BUSINESS });
    expect(refused.code).toBe(4);
    expect(refused.stderr).not.toContain('replaced');
    expect(read().profiles.staging?.apiKey).toBe(PRO);
  });
});

describe.concurrent('profile remove of a profile holding a key', () => {
  // Without a terminal and without --yes: confirmation_required, nothing removed (test/commands/profile-run.test.ts).
  it('--yes removes it without a question; a profile with no key is removed without one too', async (t) => {
    const { petctl, read } = await setup(t, { staging: PRO });
    const removed = await petctl(['profile', 'remove', 'staging', '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toBe('Profile "staging" removed.\n');
    const keyless = await petctl(['profile', 'remove', 'production']);
    expect(keyless.code, keyless.stderr).toBe(0);
    expect(read().profiles).toEqual({});
  });

  it.for([
    { answer: '"y" removes it', keys: ['y', 'Enter'], code: 0 },
    { answer: 'n keeps it and exits 2 (cancelled)', keys: ['n', 'Enter'], code: 2 },
    { answer: 'Enter (the default is no) keeps it and exits 2 (cancelled)', keys: ['Enter'], code: 2 },
    { answer: 'anything but y or yes keeps it and exits 2 (cancelled)', keys: ['sure', 'Enter'], code: 2 },
  ])('on a terminal: $answer', async ({ keys, code }, t) => {
    const { configDir, read } = await setup(t, { staging: BUSINESS });
    const before = read();
    const tty = openTerminal(t, ['profile', 'remove', 'staging'], { PETCTL_CONFIG_DIR: configDir });
    await tty.waitFor(/Remove profile "staging" and its API key \*\*\*\*ness\? \(y\/N\)/);
    for (const key of keys) {
      if (key === 'Enter') tty.press('Enter');
      else tty.type(key);
    }
    expect(await tty.exitCode()).toBe(code);
    if (code === 0) {
      expect(tty.text()).toContain('Profile "staging" removed.');
      expect(read().profiles.staging).toBeUndefined();
    } else {
      expect(tty.text()).toContain('error: not confirmed: profile "staging" and its key are kept (cancelled)');
      expect(read()).toEqual(before);
    }
  });

  it('on a terminal: Ctrl-C at the question exits 130 and keeps it; --no-input refuses without asking', async (t) => {
    const { configDir, read } = await setup(t, { staging: BUSINESS });
    const before = read();
    const tty = openTerminal(t, ['profile', 'remove', 'staging'], { PETCTL_CONFIG_DIR: configDir });
    await tty.waitFor(/\(y\/N\)/);
    tty.press('C-c');
    expect(await tty.exitCode()).toBe(130);
    const noInput = openTerminal(t, ['--no-input', 'profile', 'remove', 'staging'], { PETCTL_CONFIG_DIR: configDir }, { stdoutToTerminal: true });
    expect(await noInput.exitCode()).toBe(2);
    expect(noInput.text()).not.toContain('(y/N)');
    expect(noInput.text()).toContain('(confirmation_required)');
    expect(read()).toEqual(before);
  });
});
