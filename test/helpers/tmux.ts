import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'vitest';
import { BIN, NODE } from './cli';

/**
 * petctl in a real pseudo-terminal: a private tmux server (its own socket),
 * one session per test, keys typed with send-keys as a person would, the
 * screen read with capture-pane. stdin and stderr are the terminal; stdout is
 * a file unless `stdoutToTerminal`, so the data petctl prints can be checked.
 */
export interface Terminal {
  /** Types text literally (no key names). */
  type(text: string): void;
  /** Presses keys by tmux name: Enter, C-c, Down, BSpace. */
  press(...keys: string[]): void;
  /** What the terminal shows now. */
  screen(): string;
  /** Waits until the screen matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Waits for petctl to end; its exit code. */
  exitCode(timeoutMs?: number): Promise<number>;
  /** What petctl wrote to stdout (a file). */
  stdout(): string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function openTerminal(
  t: Pick<TestContext, 'onTestFinished'>,
  args: string[],
  env: Record<string, string>,
  options: { stdoutToTerminal?: boolean } = {},
): Terminal {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-tty-'));
  const socket = `petctl-test-${randomBytes(6).toString('hex')}`;
  const tmux = (...tmuxArgs: string[]) => execFileSync('tmux', ['-L', socket, ...tmuxArgs], { encoding: 'utf8' });
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const exports = Object.entries({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'xterm-256color', ...env })
    .map(([name, value]) => `export ${name}=${quote(value)}`)
    .join('\n');
  const out = path.join(dir, 'stdout');
  const exit = path.join(dir, 'exit');
  const script = path.join(dir, 'run.sh');
  const redirect = options.stdoutToTerminal ? '' : ` > ${quote(out)}`;
  fs.writeFileSync(script, `${exports}\n${[NODE, BIN, ...args].map(quote).join(' ')}${redirect}\necho $? > ${quote(exit)}.tmp && mv ${quote(exit)}.tmp ${quote(exit)}\nsleep 30\n`);
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'petctl', '-x', '100', '-y', '30', `sh ${quote(script)}`);
  t.onTestFinished(() => {
    try {
      tmux('kill-server');
    } catch {
      // Already gone.
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const terminal: Terminal = {
    type: (text) => void tmux('send-keys', '-t', 'petctl', '-l', text),
    press: (...keys) => void tmux('send-keys', '-t', 'petctl', ...keys),
    screen: () => tmux('capture-pane', '-p', '-t', 'petctl'),
    async waitFor(pattern, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const screen = terminal.screen();
        if (pattern.test(screen)) return screen;
        if (Date.now() > until) throw new Error(`the terminal never showed ${pattern}; it shows:\n${screen}`);
        await sleep(50);
      }
    },
    async exitCode(timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!fs.existsSync(exit)) {
        if (Date.now() > until) throw new Error(`petctl did not end; the terminal shows:\n${terminal.screen()}`);
        await sleep(50);
      }
      return Number(fs.readFileSync(exit, 'utf8').trim());
    },
    stdout: () => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : ''),
  };
  return terminal;
}
