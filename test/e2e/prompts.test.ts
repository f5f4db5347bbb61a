import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { newApiKey, tempDir } from '../helpers/cli';
import { startScriptedServer } from '../helpers/scripted-server';
import { openTerminal } from '../helpers/tmux';

/**
 * Prompts for what `pets add` and `profile add` are missing, driven through a
 * real pseudo-terminal (tmux) as a person would type. .ci/run installs tmux;
 * without it these tests fail rather than skip.
 */

const BIG = '9007199254740993';

async function petServer(t: { onTestFinished(fn: () => unknown): void }) {
  const server = await startScriptedServer((request, res) => {
    res.writeHead(201, { 'content-type': 'application/json' });
    // Echo the animal back with an id, digit for digit.
    res.end(`{"id":${BIG},${request.body.slice(1)}`);
  });
  const configDir = tempDir();
  t.onTestFinished(() => server.close());
  const env = { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: newApiKey() };
  return { server, env, args: ['--base-url', server.baseUrl] };
}

describe.concurrent('prompts on a terminal', () => {
  it('pets add with no flags asks for name, category id and status, then sends', async (t) => {
    const { server, env, args } = await petServer(t);
    const tty = openTerminal(t, [...args, 'pets', 'add'], env);
    await tty.waitFor(/Name/);
    tty.press('Enter');
    await tty.waitFor(/The name must not be empty/);
    tty.type('Rex');
    tty.press('Enter');
    await tty.waitFor(/Category id/);
    tty.type('12x');
    tty.press('Enter');
    await tty.waitFor(/The category id must be a whole number, not "12x"/);
    tty.press('BSpace', 'BSpace', 'BSpace');
    tty.type(BIG);
    tty.press('Enter');
    const screen = await tty.waitFor(/Status/);
    expect(screen).toMatch(/available[\s\S]*pending[\s\S]*sold[\s\S]*no status \(appears in no status-filtered list\)/);
    tty.press('Down');
    tty.press('Enter');
    expect(await tty.exitCode()).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body).toBe(`{"name":"Rex","categoryId":${BIG},"status":"pending"}`);
    expect(tty.stdout()).toBe(`${BIG}\tRex\t${BIG}\tpending\n`);
  });

  it('pets add asks nothing when no profile is chosen among several (no_profile, exit 2), or the profile has no key (not_configured, exit 4)', async (t) => {
    const { server, env } = await petServer(t);
    const config = { profiles: { production: { baseUrl: server.baseUrl }, staging: { baseUrl: server.baseUrl } } };
    fs.writeFileSync(`${env.PETCTL_CONFIG_DIR}/config.json`, JSON.stringify(config), { mode: 0o600 });
    const none = openTerminal(t, ['pets', 'add'], env);
    expect(await none.exitCode()).toBe(2);
    expect(none.screen()).toContain('error: no profile chosen; petctl has profiles production, staging.');
    expect(none.screen()).not.toMatch(/Name/);

    fs.writeFileSync(`${env.PETCTL_CONFIG_DIR}/config.json`, JSON.stringify({ ...config, activeProfile: 'sandbox' }), { mode: 0o600 });
    const keyless = openTerminal(t, ['-p', 'production', 'pets', 'add'], { PETCTL_CONFIG_DIR: env.PETCTL_CONFIG_DIR });
    expect(await keyless.exitCode()).toBe(4);
    expect(keyless.screen()).toContain('error: no API key for profile "production" (not_configured)');
    expect(keyless.screen()).not.toMatch(/Name|Category id|Status/);
    expect(server.requests).toHaveLength(0);
  });

  it('asks only for what is missing; Enter at the status prompt chooses available, which comes first; "no status" is offered last', async (t) => {
    const { server, env, args } = await petServer(t);
    for (const [keys, body] of [[['Enter'], '{"name":"Tom","categoryId":2,"status":"available"}'], [['Up'], '{"name":"Tom","categoryId":2}']] as const) {
      const tty = openTerminal(t, [...args, 'pets', 'add', '--name', 'Tom'], env);
      await tty.waitFor(/Category id/);
      expect(tty.screen()).not.toMatch(/Name/);
      tty.type('2');
      tty.press('Enter');
      const screen = await tty.waitFor(/Status/);
      // The highlighted choice is the first one listed; "no status" comes last, so Up reaches it.
      expect(screen).toMatch(/Status[^\n]*\n\W*available[\s\S]*pending[\s\S]*sold[\s\S]*no status/);
      tty.press(...keys);
      if (keys[0] === 'Up') {
        await tty.waitFor(/❯ no status/);
        tty.press('Enter');
      }
      expect(await tty.exitCode()).toBe(0);
      expect(server.requests.at(-1)?.body).toBe(body);
      if (keys[0] === 'Up') expect(tty.text()).toContain('1 animal has no status: it appears in no pets list --status available|pending|sold, only in pets list without --status');
      else expect(tty.text()).not.toContain('no status:');
    }
  });

  it('Ctrl-C at a prompt exits 130 and sends nothing', async (t) => {
    const { server, env, args } = await petServer(t);
    const tty = openTerminal(t, [...args, 'pets', 'add'], env);
    await tty.waitFor(/Name/);
    tty.type('Re');
    tty.press('C-c');
    expect(await tty.exitCode()).toBe(130);
    const atStatus = openTerminal(t, [...args, 'pets', 'add', '--name', 'Rex'], env);
    await atStatus.waitFor(/Category id/);
    atStatus.type('1');
    atStatus.press('Enter');
    await atStatus.waitFor(/Status/);
    atStatus.press('C-c');
    expect(await atStatus.exitCode()).toBe(130);
    expect(server.requests).toHaveLength(0);
  });

  it('--no-input and PETCTL_NO_INPUT=1 keep the usage error (exit 2) on a terminal; auth login never shows the hidden prompt with them (nothing stored)', async (t) => {
    const { server, env, args } = await petServer(t);
    const flag = openTerminal(t, [...args, '--no-input', 'pets', 'add', '--name', 'Rex'], env, { stdoutToTerminal: true });
    expect(await flag.exitCode()).toBe(2);
    expect(flag.screen()).toContain("error: required option '--category-id <int64>' not specified (usage_error)");
    const variable = openTerminal(t, [...args, 'pets', 'add'], { ...env, PETCTL_NO_INPUT: '1' }, { stdoutToTerminal: true });
    expect(await variable.exitCode()).toBe(2);
    expect(variable.screen()).toContain("error: required option '--name <name>' not specified (usage_error)");
    expect(server.requests).toHaveLength(0);

    // auth login never shows the hidden prompt with them: exit 2, nothing stored.
    const configDir = tempDir();
    const login = openTerminal(t, ['--no-input', 'auth', 'login', '--insecure-storage'], { PETCTL_CONFIG_DIR: configDir }, { stdoutToTerminal: true });
    expect(await login.exitCode()).toBe(2);
    expect(login.screen()).not.toContain('API key for profile');
    expect(login.screen()).toContain('error: no API key: prompting is off');
    const loginVariable = openTerminal(t, ['auth', 'login', '--insecure-storage'], { PETCTL_CONFIG_DIR: configDir, PETCTL_NO_INPUT: '1' }, { stdoutToTerminal: true });
    expect(await loginVariable.exitCode()).toBe(2);
    expect(loginVariable.screen()).not.toContain('API key for profile');
    expect(fs.existsSync(`${configDir}/config.json`)).toBe(false);
    // Without them it prompts, as before.
    const prompting = openTerminal(t, ['auth', 'login', '--insecure-storage'], { PETCTL_CONFIG_DIR: configDir });
    await prompting.waitFor(/API key for profile "sandbox":/);
    prompting.press('C-c');
    expect(await prompting.exitCode()).toBe(130);
  });

  it('profile add without --base-url asks for it and checks it like the flag', async (t) => {
    const configDir = tempDir();
    const tty = openTerminal(t, ['profile', 'add', 'staging'], { PETCTL_CONFIG_DIR: configDir });
    await tty.waitFor(/Base URL/);
    tty.type('http://staging.example.org/v1');
    tty.press('Enter');
    await tty.waitFor(/clear text/);
    tty.press('C-u');
    for (let i = 0; i < 30; i++) tty.press('BSpace');
    tty.type('https://staging.example.org/v1/');
    tty.press('Enter');
    expect(await tty.exitCode()).toBe(0);
    const config = JSON.parse(fs.readFileSync(`${configDir}/config.json`, 'utf8')) as { profiles: Record<string, { baseUrl: string }> };
    expect(config.profiles.staging?.baseUrl).toBe('https://staging.example.org/v1');
  });
});
