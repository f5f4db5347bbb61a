import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { type TestContext, describe, expect, it } from 'vitest';
import { newApiKey, tempDir } from '../helpers/cli';
import { type Reply, json, startScriptedServer } from '../helpers/scripted-server';
import { type Terminal, type TerminalOptions, openTerminal } from '../helpers/tmux';

/**
 * Outside text holding OSC 0, OSC 52, ESC [2J, a CR and U+202E, in a real terminal (tmux, set-clipboard on):
 * nothing of it may act (title, paste buffer, screen); the pane shows visible escapes. JSON keeps its value.
 */

const HOSTILE = 'bad \u001b]0;PWNED\u0007\u001b]52;c;cm0gLXJmIH4gIw==\u0007\u001b[2J\rEVIL\u202e';
const SHOWN = 'bad \\x1b]0;PWNED\\x07\\x1b]52;c;cm0gLXJmIH4gIw==\\x07\\x1b[2J\\rEVIL\\u202e';
/** A name JSON itself leaves raw: U+009B and U+202E, shown as \u escapes. */
const C1_NAME = 'Rex\u009b2J\u202eevil';

async function setup(t: TestContext, fallback?: Reply) {
  const server = await startScriptedServer(fallback);
  const dir = tempDir();
  t.onTestFinished(() => server.close());
  const env = { PETCTL_CONFIG_DIR: path.join(dir, 'config'), PETCTL_API_KEY: newApiKey() };
  const run = (args: string[], options: TerminalOptions = {}, extraEnv: Record<string, string> = {}) =>
    openTerminal(t, ['--base-url', server.baseUrl, ...args], { ...env, ...extraEnv }, { clipboard: true, width: 200, ...options });
  return { dir, run };
}

/**
 * Waits until the pane has shown `text`. tmux reads the pty on its own time, so petctl can end
 * before its output is drawn; once the text is drawn, every byte written before it was read.
 */
async function shows(tty: Terminal, text: string, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const all = tty.text();
    if (all.includes(text)) return all;
    if (Date.now() > until) throw new Error(`the terminal never showed ${JSON.stringify(text)}; it shows:\n${all}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Ends, and nothing reached the terminal as control bytes; returns what the pane shows. */
async function expectInert(tty: Terminal, exitCode: number, shown = SHOWN): Promise<string> {
  expect(await tty.exitCode()).toBe(exitCode);
  const text = await shows(tty, shown);
  expect(tty.title()).not.toContain('PWNED');
  expect(tty.buffers()).toBe('');
  return text;
}

describe('the terminal this test reads', () => {
  it('shows raw bytes acting: OSC 0 sets the title, OSC 52 fills a paste buffer', async (t) => {
    const tty = openTerminal(t, [], {}, { clipboard: true, stdoutToTerminal: true, command: ['printf', '%s\n', HOSTILE] });
    expect(await tty.exitCode()).toBe(0);
    await shows(tty, 'EVIL');
    expect(tty.title()).toBe('PWNED');
    expect(tty.buffers()).not.toBe('');
    expect(tty.text()).not.toContain('\\x1b');
  });
});

describe.concurrent('outside text on a terminal', () => {
  // Every other line on stderr goes through the same function: test/output/stderr-lines.test.ts holds that.
  it('an HTTP 429 message from the server shows as escapes', async (t) => {
    const { run } = await setup(t, json(429, { code: 'rate_limited', message: HOSTILE, status: 429 }, { 'retry-after': '3600' }));
    const text = await expectInert(run(['pets', 'list']), 5);
    expect(text).toMatch(/^error: .*bad \\x1b\]0;PWNED/m);
  });

  it('a Redis error string in the state-store warning', async (t) => {
    // RESP ends an error at CR LF, so this one carries no lone CR.
    const redisError = HOSTILE.replace('\r', ' ');
    // One error for each command of the pipelined handshake, as a real server answers every command.
    const commands = (data: Buffer) => Math.max(1, data.toString('latin1').split('\r\n').filter((line) => /^\*\d+$/.test(line)).length);
    const redis = net.createServer((socket) => socket.on('data', (data) => socket.write(`-ERR ${redisError}\r\n`.repeat(commands(data)))));
    await new Promise<void>((resolve) => redis.listen(0, '127.0.0.1', resolve));
    t.onTestFinished(() => void redis.close());
    const { run } = await setup(t, json(200, []));
    const port = (redis.address() as net.AddressInfo).port;
    const tty = run(['pets', 'list'], {}, { PETCTL_STATE_URL: `redis://127.0.0.1:${port}/0` });
    const text = await expectInert(tty, 0, SHOWN.replace('\\r', ' '));
    expect(text).toMatch(/^warning: cannot use the shared rate-limit state at redis:\/\/127\.0\.0\.1:\d+\/0: ERR bad \\x1b/m);
  });

  // Piped, csv and TSV keep the bytes (and csv's leading ' before a formula): test/output/records.test.ts,
  // formats.test.ts.
  it("pet names in the table, in csv (its ' before the visible CR) and in --query lines on a terminal", async (t) => {
    const pets = [
      { id: 1, name: HOSTILE, categoryId: 2, status: 'available' },
      { id: 7, name: '\r=1+1', categoryId: 1 },
    ];
    const { run } = await setup(t, json(200, pets));
    const table = await expectInert(run(['pets', 'list'], { stdoutToTerminal: true }), 0);
    expect(table).toMatch(new RegExp(`^1 +${SHOWN.replace(/[\\[\]]/g, '\\$&')} +2 +available$`, 'm'));
    const csv = await expectInert(run(['-o', 'csv', 'pets', 'list'], { stdoutToTerminal: true }), 0);
    expect(csv).toContain("7,'\\r=1+1,1,");
    await expectInert(run(['--query', '[].name', 'pets', 'list'], { stdoutToTerminal: true }), 0);
  });

  it('a file name in an error', async (t) => {
    const { run, dir } = await setup(t);
    const file = path.join(dir, `${HOSTILE}.csv`);
    const text = await expectInert(run(['pets', 'add', '--file', file]), 2);
    expect(text).toContain(`${SHOWN}.csv`);
  });

  // Each other writer of JSON (ndjson, --query, --all, api, --paginate) is test/output/'s: records, query, listing,
  // api-response.
  it("JSON (pets list -o json, a bulk import's rows): C1 and bidi controls as \\u escapes, the same JSON value", async (t) => {
    const pet = { id: 1, name: C1_NAME, categoryId: 2 };
    const { run, dir } = await setup(t, json(200, [pet]));
    const listed = run(['-o', 'json', 'pets', 'list'], { stdoutToTerminal: true });
    expect(await listed.exitCode()).toBe(0);
    const text = (await shows(listed, ']')).trim();
    expect(text).toContain('Rex\\u009b2J\\u202eevil');
    expect(JSON.parse(text)).toEqual([pet]);

    const { run: importing } = await setup(t, json(201, pet));
    fs.writeFileSync(path.join(dir, 'rows.csv'), 'name,categoryId\nRex,2\n');
    const file = path.join(dir, 'rows.csv');
    const rows = importing(['-o', 'ndjson', 'pets', 'add', '--file', file], { stdoutToTerminal: true });
    expect(await rows.exitCode()).toBe(0);
    expect(await shows(rows, '\\u202eevil')).toContain('Rex\\u009b2J\\u202eevil');
  });
});
