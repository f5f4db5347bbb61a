import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { json, startScriptedServer, type Reply } from '../helpers/scripted-server';
import { openTerminal, type Terminal, type TerminalOptions } from '../helpers/tmux';

/**
 * Outside text holding OSC 0, OSC 52, ESC [2J, a CR and U+202E, in a real terminal (tmux, set-clipboard on):
 * nothing of it may act (title, paste buffer, screen); the pane shows visible escapes.
 */

const HOSTILE = 'bad \u001b]0;PWNED\u0007\u001b]52;c;cm0gLXJmIH4gIw==\u0007\u001b[2J\rEVIL\u202e';
const SHOWN = 'bad \\x1b]0;PWNED\\x07\\x1b]52;c;cm0gLXJmIH4gIw==\\x07\\x1b[2J\\rEVIL\\u202e';

async function setup(t: TestContext, fallback?: Reply) {
  const server = await startScriptedServer(fallback);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-hostile-'));
  t.onTestFinished(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const env = { PETCTL_CONFIG_DIR: path.join(dir, 'config'), PETCTL_API_KEY: 'pk_test_hostile' };
  const run = (args: string[], options: TerminalOptions = {}, extraEnv: Record<string, string> = {}) =>
    openTerminal(t, ['--base-url', server.baseUrl, ...args], { ...env, ...extraEnv }, { clipboard: true, width: 200, ...options });
  return { server, dir, env, run };
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

describe('outside text on a terminal', () => {
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

  it('pet names in the table, in csv and in --query lines on a terminal; the data piped keeps the bytes', async (t) => {
    const pets = [{ id: 1, name: HOSTILE, categoryId: 2, status: 'available' }];
    const { run } = await setup(t, json(200, pets));
    const table = await expectInert(run(['pets', 'list'], { stdoutToTerminal: true }), 0);
    expect(table).toMatch(new RegExp(`^1 +${SHOWN.replace(/[\\[\]]/g, '\\$&')} +2 +available$`, 'm'));
    await expectInert(run(['-o', 'csv', 'pets', 'list'], { stdoutToTerminal: true }), 0);
    await expectInert(run(['--query', '[].name', 'pets', 'list'], { stdoutToTerminal: true }), 0);
    const piped = run(['pets', 'list']);
    expect(await piped.exitCode()).toBe(0);
    expect(piped.stdout()).toBe(`1\t${HOSTILE.replace('\r', ' ')}\t2\tavailable\n`);
    const csv = run(['-o', 'csv', 'pets', 'list']);
    expect(await csv.exitCode()).toBe(0);
    expect(csv.stdout()).toBe(`id,name,categoryId,status\n1,"${HOSTILE}",2,available\n`);
  });

  it('a file name in an error', async (t) => {
    const { run, dir } = await setup(t);
    const file = path.join(dir, `${HOSTILE}.csv`);
    const text = await expectInert(run(['pets', 'add', '--file', file]), 2);
    expect(text).toContain(`${SHOWN}.csv`);
  });
});
