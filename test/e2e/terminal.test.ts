import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, describe, expect, it } from 'vitest';
import { BIG, newApiKey, tempDir } from '../helpers/cli';
import { type Reply, json, startScriptedServer } from '../helpers/scripted-server';
import { type Terminal, type TerminalOptions, openTerminal } from '../helpers/tmux';

/**
 * petctl in tmux, as a person types and reads: what it asks, and outside text holding OSC 0, OSC 52, ESC [2J, a CR
 * and U+202E (set-clipboard on) shown as visible escapes rather than acting.
 */

const NO_STATUS =
  '1 animal has no status: it appears in no pets list --status available|pending|sold, only in pets list without --status';

/** The animal sent, created with the id BIG. */
const created: Reply = (request, res) => {
  res.writeHead(201, { 'content-type': 'application/json' });
  res.end(`{"id":${BIG},${request.body.slice(1)}`);
};

/** A scripted server, and petctl in tmux sent to it (`run`) with a config dir of its own (`dir`). */
async function setup(t: TestContext, fallback: Reply = created) {
  const server = await startScriptedServer(fallback, { closeAfter: t });
  const dir = tempDir();
  const env = { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: newApiKey() };
  const run = (args: string[], options: TerminalOptions = {}) =>
    openTerminal(t, ['--base-url', server.baseUrl, ...args], env, { clipboard: true, width: 200, ...options });
  return { server, env, dir, run };
}

describe.concurrent('what petctl asks', () => {
  it('pets add with no flags asks for name, category id and status, refusing a bad value in place; "no status" is offered last; asks only for what is missing; Enter at the status prompt chooses available, which comes first', async (t) => {
    const { server, run } = await setup(t);
    const tty = run(['pets', 'add']);
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
    // "no status" comes last, so Up reaches it.
    tty.press('Up');
    await tty.waitFor(/❯ no status/);
    tty.press('Enter');
    expect(await tty.exitCode()).toBe(0);
    expect(server.requests.map((request) => request.body)).toEqual([`{"name":"Rex","categoryId":${BIG}}`]);
    expect(tty.stdout()).toBe(`${BIG}\tRex\t${BIG}\t-\n`);
    expect(tty.text()).toContain(NO_STATUS);

    const named = run(['pets', 'add', '--name', 'Tom']);
    await named.waitFor(/Category id/);
    expect(named.screen()).not.toMatch(/Name/);
    named.type('2');
    named.press('Enter');
    expect(await named.waitFor(/Status/)).toMatch(/Status[^\n]*\n\W*available/);
    named.press('Enter');
    expect(await named.exitCode()).toBe(0);
    expect(server.requests[1]?.body).toBe('{"name":"Tom","categoryId":2,"status":"available"}');
    expect(server.requests).toHaveLength(2);
    expect(named.text()).not.toContain('no status:');
  });

  it('pets add asks nothing when no profile is chosen among several (no_profile, exit 2), or the profile has no key (not_configured, exit 4)', async (t) => {
    const { server, env } = await setup(t);
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

  // At a text prompt: profile remove's question, below.
  it('Ctrl-C at a prompt of choices exits 130 and sends nothing', async (t) => {
    const { server, run } = await setup(t);
    const atStatus = run(['pets', 'add', '--name', 'Rex']);
    await atStatus.waitFor(/Category id/);
    atStatus.type('1');
    atStatus.press('Enter');
    await atStatus.waitFor(/Status/);
    atStatus.press('C-c');
    expect(await atStatus.exitCode()).toBe(130);
    expect(server.requests).toHaveLength(0);
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

  it('auth login prompts, echoes nothing of the key (a mistake erased too), and stores it', async (t) => {
    const configDir = tempDir();
    const key = newApiKey();
    const login = ['auth', 'login', '--no-verify', '--insecure-storage'];
    const tty = openTerminal(t, login, { PETCTL_CONFIG_DIR: configDir });
    await tty.waitFor(/API key for profile "sandbox":/);
    tty.type(`${key.slice(0, 10)}x`);
    tty.press('BSpace');
    tty.type(key.slice(10));
    tty.press('Enter');
    expect(await tty.exitCode()).toBe(0);
    expect(tty.text()).not.toContain(key.slice(0, 10));
    const stored = JSON.parse(fs.readFileSync(path.join(configDir, 'config.json'), 'utf8'));
    expect(stored).toMatchObject({ profiles: { sandbox: { apiKey: key } } });
  });

  it.for([
    { answer: '"y" removes it', keys: ['y', 'Enter'], code: 0 },
    { answer: 'Enter (the default is no) keeps it and exits 2 (cancelled)', keys: ['Enter'], code: 2 },
    { answer: 'anything but y or yes keeps it and exits 2 (cancelled)', keys: ['sure', 'Enter'], code: 2 },
    { answer: 'Ctrl-C at the question exits 130 and keeps it', keys: ['C-c'], code: 130 },
  ])('profile remove of a profile holding a key asks (y/N): $answer', async ({ keys, code }, t) => {
    const configDir = tempDir();
    const configFile = path.join(configDir, 'config.json');
    const staging = { baseUrl: 'https://staging.example.org/v1', apiKey: 'sandbox-business' };
    const production = { baseUrl: 'https://api.example.org/v1' };
    const before = JSON.stringify({ activeProfile: 'production', profiles: { production, staging } });
    fs.writeFileSync(configFile, before, { mode: 0o600 });
    const tty = openTerminal(t, ['profile', 'remove', 'staging'], { PETCTL_CONFIG_DIR: configDir });
    await tty.waitFor(/Remove profile "staging" and its API key \*\*\*\*ness\? \(y\/N\)/);
    for (const key of keys) {
      if (key === 'Enter' || key === 'C-c') tty.press(key);
      else tty.type(key);
    }
    expect(await tty.exitCode()).toBe(code);
    if (code === 0) {
      expect(tty.text()).toContain('Profile "staging" removed.');
      expect(JSON.parse(fs.readFileSync(configFile, 'utf8')).profiles.staging).toBeUndefined();
      return;
    }
    const cancelled = 'error: not confirmed: profile "staging" and its key are kept (cancelled)';
    if (code === 2) expect(tty.text()).toContain(cancelled);
    expect(fs.readFileSync(configFile, 'utf8')).toBe(before);
  });
});

const HOSTILE = 'bad \u001b]0;PWNED\u0007\u001b]52;c;cm0gLXJmIH4gIw==\u0007\u001b[2J\rEVIL\u202e';
const SHOWN = 'bad \\x1b]0;PWNED\\x07\\x1b]52;c;cm0gLXJmIH4gIw==\\x07\\x1b[2J\\rEVIL\\u202e';
/** A name JSON itself leaves raw: U+009B and U+202E, shown as \u escapes. */
const C1_NAME = 'Rex\u009b2J\u202eevil';

/** Ends, and nothing reached the terminal as control bytes; returns what the pane shows. */
async function expectInert(tty: Terminal): Promise<string> {
  expect(await tty.exitCode()).toBe(0);
  const text = await tty.waitFor(SHOWN, { scrollback: true });
  expect(tty.title()).not.toContain('PWNED');
  expect(tty.buffers()).toBe('');
  return text;
}

describe.concurrent('outside text on a terminal', () => {
  it('the terminal this test reads shows raw bytes acting: OSC 0 sets the title, OSC 52 fills a paste buffer', async (t) => {
    const tty = openTerminal(t, [], {}, { clipboard: true, stdoutToTerminal: true, command: ['printf', '%s\n', HOSTILE] });
    expect(await tty.exitCode()).toBe(0);
    await tty.waitFor('EVIL', { scrollback: true });
    expect(tty.title()).toBe('PWNED');
    expect(tty.buffers()).not.toBe('');
    expect(tty.text()).not.toContain('\\x1b');
  });

  it("pet names in the table, in csv (its ' before the visible CR) and in --query lines on a terminal", async (t) => {
    const pets = [
      { id: 1, name: HOSTILE, categoryId: 2, status: 'available' },
      { id: 7, name: '\r=1+1', categoryId: 1 },
    ];
    const { run } = await setup(t, json(200, pets));
    const table = await expectInert(run(['pets', 'list'], { stdoutToTerminal: true }));
    expect(table).toMatch(new RegExp(`^1 +${SHOWN.replace(/[\\[\]]/g, '\\$&')} +2 +available$`, 'm'));
    const csv = await expectInert(run(['-o', 'csv', 'pets', 'list'], { stdoutToTerminal: true }));
    expect(csv).toContain("7,'\\r=1+1,1,");
    await expectInert(run(['--query', '[].name', 'pets', 'list'], { stdoutToTerminal: true }));
  });

  it("JSON (pets list -o json, a bulk import's rows): C1 and bidi controls as \\u escapes, the same JSON value", async (t) => {
    const pet = { id: 1, name: C1_NAME, categoryId: 2 };
    const { run, dir } = await setup(t, json(200, [pet]));
    const listed = run(['-o', 'json', 'pets', 'list'], { stdoutToTerminal: true });
    expect(await listed.exitCode()).toBe(0);
    const text = (await listed.waitFor(']', { scrollback: true })).trim();
    expect(text).toContain('Rex\\u009b2J\\u202eevil');
    expect(JSON.parse(text)).toEqual([pet]);

    const { run: importing } = await setup(t, json(201, pet));
    fs.writeFileSync(path.join(dir, 'rows.csv'), 'name,categoryId\nRex,2\n');
    const file = path.join(dir, 'rows.csv');
    const rows = importing(['-o', 'ndjson', 'pets', 'add', '--file', file], { stdoutToTerminal: true });
    expect(await rows.exitCode()).toBe(0);
    expect(await rows.waitFor('\\u202eevil', { scrollback: true })).toContain('Rex\\u009b2J\\u202eevil');
  });
});
