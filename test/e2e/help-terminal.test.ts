import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli';
import { openTerminal } from '../helpers/tmux';

/**
 * Help where a person sees it: petctl, its pager and man in a real terminal (tmux, 100 columns by 30 rows
 * unless said), the screen read back. .ci/run installs tmux, man-db and less; without them these tests fail.
 * A long guide goes through the reader's pager: less by default, as git and gh page; PETCTL_PAGER, else PAGER.
 */

const MAN_PAGES = fileURLToPath(new URL('../../dist/man/', import.meta.url));
const GUIDE_END = 'older records too).';

/** A man tree as `npm install -g` lays it out: <prefix>/share/man/man1/<page>.1, linked to the package's pages. */
function manTree(): string {
  const root = tempDir('petctl-man-');
  fs.mkdirSync(path.join(root, 'man1'));
  for (const page of fs.readdirSync(MAN_PAGES)) fs.symlinkSync(path.join(MAN_PAGES, page), path.join(root, 'man1', page));
  return root;
}

/** A pager that keeps its LESS, its words and what it was given, beside itself. */
function recordingPager(): { command: string; seen(): string[] | undefined; text(): string } {
  const script = path.join(tempDir('petctl-pager-'), 'pager');
  fs.writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "LESS=\${LESS-unset}" "$@" > "$0.seen"\ncat > "$0.text"\n`, { mode: 0o755 });
  return {
    command: script,
    seen: () => (fs.existsSync(`${script}.seen`) ? fs.readFileSync(`${script}.seen`, 'utf8').trimEnd().split('\n') : undefined),
    text: () => fs.readFileSync(`${script}.text`, 'utf8'),
  };
}

describe.concurrent('help in a terminal', () => {
  it("pets add --help is laid out for the pane's width, as the program lays it out", async (t) => {
    // Wide enough for commander to wrap the descriptions: 40 columns or more beside the flags.
    const width = 72;
    const page = openTerminal(t, ['pets', 'add', '--help'], {}, { stdoutToTerminal: true, width });
    // A global flag first: past the captured pages, the program prints the help itself.
    const program = openTerminal(t, ['-q', 'pets', 'add', '--help'], {}, { stdoutToTerminal: true, width });
    expect(await page.exitCode()).toBe(0);
    expect(await program.exitCode()).toBe(0);
    expect(page.text()).toBe(program.text());
    // Wrapped for 72 columns, not for the 80 of a pipe (lines the terminal wrapped come back joined).
    const options = (text: string) => text.split('\nOptions:\n')[1]!.split('\n\n')[0]!.split('\n');
    expect(options(page.text()).filter((line) => line.length > width)).toEqual([]);
    expect(options((await runCli(['pets', 'add', '--help'])).stdout).filter((line) => line.length > width).length).toBeGreaterThan(5);
  });

  it("petctl help rate-limits is wrapped to the pane's width by petctl itself", async (t) => {
    const width = 64;
    const tty = openTerminal(t, ['help', 'rate-limits'], { PAGER: 'cat' }, { stdoutToTerminal: true, width });
    expect(await tty.exitCode()).toBe(0);
    const lines = tty.text().split('\n');
    expect(lines[0]).toBe('Rate limits: the waiting model');
    // None is wider than the pane, but for code as written; most come close.
    const prose = lines.filter((line) => !line.startsWith('    '));
    expect(prose.filter((line) => line.length > width)).toEqual([]);
    expect(prose.filter((line) => line.length > width - 12).length).toBeGreaterThan(20);
  });

  // Every flag on each page: test/package/man-pages.test.ts.
  it('man petctl-pets-add opens in the pager, as a person reads it', async (t) => {
    const tty = openTerminal(t, [], { MANPATH: manTree(), MANPAGER: 'less', LESS: '' }, { stdoutToTerminal: true, command: ['man', 'petctl-pets-add'] });
    await tty.waitFor(/^PETCTL-PETS-ADD\(1\) +petctl manual +PETCTL-PETS-ADD\(1\)$/m);
    expect(tty.screen()).toContain('petctl-pets-add - add an animal');
    tty.press('q');
    expect(await tty.exitCode()).toBe(0);
  });
});

describe.concurrent('petctl help <topic> through a pager', () => {
  it("with PAGER and LESS unset, a long guide opens in less at its first screen; Ctrl-C is less's; q ends petctl with 0", async (t) => {
    const tty = openTerminal(t, ['help', 'bulk-import'], {}, { stdoutToTerminal: true });
    // less's prompt on the last row: it waits for the reader.
    const screen = await tty.waitFor(/^:\s*$/m);
    expect(screen.split('\n')[0]).toBe('Bulk import: petctl pets add --file');
    expect(screen).not.toContain(GUIDE_END);
    tty.press('C-c');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(tty.screen()).toMatch(/^:\s*$/m);
    tty.press('q');
    expect(await tty.exitCode()).toBe(0);
    // LESS=FRX: the first screen stays on the terminal after less ends.
    expect(tty.text()).toContain('Bulk import: petctl pets add --file');
    expect(tty.text()).not.toMatch(/EPIPE|error|Error/);
  });

  it('PETCTL_PAGER wins over PAGER and runs with its words; it gets the whole guide, and LESS=FRX unless LESS is set', async (t) => {
    const pager = recordingPager();
    const piped = (await runCli(['help', 'bulk-import'], { env: { COLUMNS: '100' } })).stdout;
    const tty = openTerminal(t, ['help', 'bulk-import'], { PETCTL_PAGER: `${pager.command} --one two`, PAGER: 'cat' }, { stdoutToTerminal: true });
    expect(await tty.exitCode()).toBe(0);
    expect(pager.seen()).toEqual(['LESS=FRX', '--one', 'two']);
    expect(pager.text()).toBe(piped);

    const own = recordingPager();
    const withLess = openTerminal(t, ['help', 'sandbox'], { PAGER: own.command, LESS: '-R' }, { stdoutToTerminal: true });
    expect(await withLess.exitCode()).toBe(0);
    expect(own.seen()).toEqual(['LESS=-R']);
  });

  it('no pager when PETCTL_PAGER or PAGER is empty or cat, nor for a guide that fits the terminal', async (t) => {
    const pager = recordingPager();
    // The recording pager under another name: it must not run.
    const noPager: Record<string, string>[] = [{ PETCTL_PAGER: '', PAGER: pager.command }, { PETCTL_PAGER: 'cat', PAGER: pager.command }, { PAGER: ' cat ' }];
    for (const env of noPager) {
      const tty = openTerminal(t, ['help', 'bulk-import'], env, { stdoutToTerminal: true });
      expect(await tty.exitCode()).toBe(0);
      expect(tty.text()).toContain(GUIDE_END);
    }
    // exit-codes: 26 lines in a 30-row terminal.
    const short = openTerminal(t, ['help', 'exit-codes'], { PAGER: pager.command }, { stdoutToTerminal: true });
    expect(await short.exitCode()).toBe(0);
    expect(short.text()).toMatch(/^130 +interrupted by Ctrl-C/m);
    expect(pager.seen()).toBeUndefined();
  });

  it.for([
    { pager: '/nonexistent/pager -R', shown: GUIDE_END },
    { pager: "'no such pager'", shown: GUIDE_END },
    { pager: 'head -n 1', shown: 'Bulk import: petctl pets add --file' },
    { pager: 'true', shown: '' },
  ])('a pager that cannot start prints the guide as it is, one that quits early shows what it took: $pager, exit 0, no EPIPE', async ({ pager, shown }, t) => {
    const tty = openTerminal(t, ['help', 'bulk-import'], { PAGER: pager }, { stdoutToTerminal: true });
    expect(await tty.exitCode()).toBe(0);
    const text = tty.text();
    if (shown === GUIDE_END) expect(text).toContain(GUIDE_END);
    else expect(text.trimEnd()).toBe(shown);
    // The guide quotes petctl's errors: none of Node's here, nor a stack.
    expect(text).not.toMatch(/EPIPE|ERR_|node:internal|^\s+at /m);
  });
});
