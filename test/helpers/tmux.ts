import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestContext } from 'vitest';
import { BIN, NODE, tempDir } from './cli';

/** petctl in a real terminal: a private tmux server a test. stdout is a file unless `stdoutToTerminal`, so its data can be checked. */
export type Terminal = ReturnType<typeof openTerminal>;

export interface TerminalOptions {
  stdoutToTerminal?: boolean;
  /** Columns (default 100). */
  width?: number;
  /** tmux's set-clipboard on: an application's OSC 52 creates a paste buffer. */
  clipboard?: boolean;
  /** Runs this instead of petctl (to check what the terminal does with raw bytes). */
  command?: string[];
}

export function openTerminal(
  t: Pick<TestContext, 'onTestFinished'>,
  args: string[],
  env: Record<string, string>,
  options: TerminalOptions = {},
) {
  const dir = tempDir();
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
  const command = options.command ?? [NODE, BIN, ...args];
  // Ctrl-C reaches the whole foreground group: the shell traps it (its child still gets the default action) so it lives to record the exit code.
  fs.writeFileSync(script, `${exports}\ntrap true INT\n${command.map(quote).join(' ')}${redirect}\necho $? > ${quote(exit)}.tmp && mv ${quote(exit)}.tmp ${quote(exit)}\nsleep 30\n`);
  const config = path.join(dir, 'tmux.conf');
  fs.writeFileSync(config, options.clipboard ? 'set -g set-clipboard on\n' : '');
  tmux('-f', config, 'new-session', '-d', '-s', 'petctl', '-x', String(options.width ?? 100), '-y', '30', `sh ${quote(script)}`);
  t.onTestFinished(() => {
    try {
      tmux('kill-server');
    } catch {
      // Already gone.
    }
  });

  const terminal = {
    /** Types text literally (no key names). */
    type: (text: string) => void tmux('send-keys', '-t', 'petctl', '-l', text),
    /** Presses keys by tmux name: Enter, C-c, Down, BSpace. */
    press: (...keys: string[]) => void tmux('send-keys', '-t', 'petctl', ...keys),
    screen: () => tmux('capture-pane', '-p', '-t', 'petctl'),
    /** Waits until the screen shows `pattern` (text or a match), or with `scrollback` anything the pane printed (text());
     * after petctl ends too, for tmux reads the pty on its own time. */
    async waitFor(pattern: RegExp | string, { timeoutMs = 10_000, scrollback = false } = {}): Promise<string> {
      const until = Date.now() + timeoutMs;
      const wanted = typeof pattern === 'string' ? JSON.stringify(pattern) : pattern;
      for (;;) {
        const screen = scrollback ? terminal.text() : terminal.screen();
        if (typeof pattern === 'string' ? screen.includes(pattern) : pattern.test(screen)) return screen;
        if (Date.now() > until) throw new Error(`the terminal never showed ${wanted}; it shows:\n${screen}`);
        await sleep(50);
      }
    },
    /** Waits for petctl to end. */
    async exitCode(timeoutMs = 10_000): Promise<number> {
      const until = Date.now() + timeoutMs;
      while (!fs.existsSync(exit)) {
        if (Date.now() > until) throw new Error(`petctl did not end; the terminal shows:\n${terminal.screen()}`);
        await sleep(50);
      }
      return Number(fs.readFileSync(exit, 'utf8').trim());
    },
    stdout: () => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : ''),
    /** Everything the pane printed, its scrollback too, with wrapped lines joined. */
    text: () => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'petctl'),
    /** The pane's title (OSC 0 and 2 set it), and tmux's paste buffers (OSC 52 fills them, with `clipboard`). */
    title: () => tmux('display-message', '-p', '-t', 'petctl', '#{pane_title}').trimEnd(),
    buffers: () => tmux('list-buffers'),
  };
  return terminal;
}
