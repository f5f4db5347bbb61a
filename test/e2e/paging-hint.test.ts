import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli';
import { openTerminal } from '../helpers/tmux';

/**
 * `pets list` against the built-in sandbox (12 animals, Link rel="next" when
 * more match than the page holds): on a terminal one line on stderr says more
 * exist and how to see them; piped output never gets it.
 */

const HINT = 'More animals than these 5: see them all with --all, or up to 100 with --limit 100.';

function configDir(t: { onTestFinished(fn: () => unknown): void }): string {
  const dir = tempConfigDir();
  t.onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe.concurrent('pets list says when the service has more', () => {
  it('on a terminal: one line on stderr after the table; -q hides it', async (t) => {
    const env = { PETCTL_CONFIG_DIR: configDir(t) };
    const tty = openTerminal(t, ['pets', 'list', '--limit', '5'], env, { stdoutToTerminal: true });
    expect(await tty.exitCode()).toBe(0);
    const screen = tty.screen();
    expect(screen).toMatch(/ID\s+NAME\s+CATEGORY\s+STATUS/);
    expect(screen).toContain(HINT);
    const lines = screen.split('\n').filter((line) => line.trim() !== '');
    expect(lines.at(-1)).toBe(HINT);

    const quiet = openTerminal(t, ['pets', 'list', '--limit', '5', '-q'], env, { stdoutToTerminal: true });
    expect(await quiet.exitCode()).toBe(0);
    expect(quiet.screen()).toMatch(/ID\s+NAME/);
    expect(quiet.screen()).not.toContain('More animals');

    // All 12 fit in one page: no next link, no line.
    const all = openTerminal(t, ['pets', 'list', '--limit', '100'], env, { stdoutToTerminal: true });
    expect(await all.exitCode()).toBe(0);
    expect(all.screen()).not.toContain('More animals');
  });

  it('piped: only the page on stdout, nothing on stderr, even with stderr on a terminal', async (t) => {
    const env = { PETCTL_CONFIG_DIR: configDir(t) };
    const piped = await runCli(['pets', 'list', '--limit', '5'], { env });
    expect(piped).toMatchObject({ code: 0, stderr: '' });
    expect(piped.stdout.split('\n')).toHaveLength(6);
    // stdout to a file, stderr on the terminal.
    const tty = openTerminal(t, ['pets', 'list', '--limit', '5'], env);
    expect(await tty.exitCode()).toBe(0);
    expect(tty.screen()).not.toContain('More animals');
    expect(tty.stdout().split('\n')).toHaveLength(6);
  });
});
