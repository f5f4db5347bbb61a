import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli';
import { openTerminal } from '../helpers/tmux';

/**
 * Help where a person sees it: petctl and man in a real terminal (tmux), the
 * screen read back. .ci/run installs tmux and man-db; without them these
 * tests fail rather than skip.
 */

const MAN_PAGES = fileURLToPath(new URL('../../dist/man/', import.meta.url));

/** A man tree as `npm install -g` lays it out: <prefix>/share/man/man1/<page>.1, linked to the package's pages. */
function manTree(): string {
  const root = tempDir('petctl-man-');
  fs.mkdirSync(path.join(root, 'man1'));
  for (const page of fs.readdirSync(MAN_PAGES)) fs.symlinkSync(path.join(MAN_PAGES, page), path.join(root, 'man1', page));
  return root;
}

describe.concurrent('help in a terminal', () => {
  it('pets add --help is laid out for the pane\'s width, as the program lays it out', async (t) => {
    // Wide enough for commander to wrap the descriptions: 40 columns or more beside the flags.
    const width = 72;
    const page = openTerminal(t, ['pets', 'add', '--help'], {}, { stdoutToTerminal: true, width });
    // A global flag first: past the captured pages, the program prints the help itself.
    const program = openTerminal(t, ['-q', 'pets', 'add', '--help'], {}, { stdoutToTerminal: true, width });
    expect(await page.exitCode()).toBe(0);
    expect(await program.exitCode()).toBe(0);
    expect(page.text()).toBe(program.text());
    expect(page.text()).toContain('Usage: petctl pets add [options]');
    // The options are wrapped for 72 columns, not for the 80 of a pipe (lines the terminal wrapped
    // come back joined); the examples after them are printed as written.
    const options = (text: string) => text.split('\nOptions:\n')[1]!.split('\n\n')[0]!.split('\n');
    expect(options(page.text()).filter((line) => line.length > width)).toEqual([]);
    expect(options((await runCli(['pets', 'add', '--help'])).stdout).filter((line) => line.length > width).length).toBeGreaterThan(5);
  });

  it('petctl help rate-limits is wrapped to the pane\'s width by petctl itself', async (t) => {
    const width = 64;
    // No pager (help-pager.test.ts pages it): the whole guide is read back from the pane.
    const tty = openTerminal(t, ['help', 'rate-limits'], { PAGER: 'cat' }, { stdoutToTerminal: true, width });
    expect(await tty.exitCode()).toBe(0);
    // Lines the terminal had to wrap come back joined: none is wider than the pane, but for code as written.
    const lines = tty.text().split('\n');
    expect(lines[0]).toBe('Rate limits: the waiting model');
    const prose = lines.filter((line) => !line.startsWith('    '));
    expect(prose.filter((line) => line.length > width)).toEqual([]);
    expect(prose.filter((line) => line.length > width - 12).length).toBeGreaterThan(20);
  });

  it('man petctl-pets-add shows the page made from the pets add command, every flag on it', async (t) => {
    const tty = openTerminal(t, [], { MANPATH: manTree(), MANPAGER: 'cat', MANWIDTH: '80' }, { stdoutToTerminal: true, command: ['man', 'petctl-pets-add'] });
    expect(await tty.exitCode()).toBe(0);
    const text = tty.text();
    expect(text).toMatch(/^PETCTL-PETS-ADD\(1\) +petctl manual +PETCTL-PETS-ADD\(1\)$/m);
    expect(text).toContain('petctl-pets-add - add an animal');
    for (const flag of ['--name', '--category-id', '--status', '--file', '--format', '--encoding', '--delimiter', '--id-column', '--new', '--reserve', '--dry-run', '--skip-invalid', '--concurrency', '--journal', '--retry-unknown']) {
      expect(text).toContain(flag);
    }
  });

  it('man petctl opens the root page in the pager, as a person reads it', async (t) => {
    const tty = openTerminal(t, [], { MANPATH: manTree(), MANPAGER: 'less', LESS: '' }, { stdoutToTerminal: true, command: ['man', 'petctl'] });
    await tty.waitFor(/PETCTL\(1\)/);
    expect(tty.screen()).toContain('petctl - Command-line client for the Pet Adoption Service');
    tty.press('q');
    expect(await tty.exitCode()).toBe(0);
  });
});
