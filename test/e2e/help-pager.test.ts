import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli';
import { openTerminal } from '../helpers/tmux';

/**
 * A long guide through the reader's pager, in a real terminal (tmux, 100 columns by 30 rows): less
 * by default, as git and gh page; PETCTL_PAGER, else PAGER; none when empty or `cat`. less comes
 * with the man page tests' packages (.ci/run). Piped, a guide is printed as before: help.test.ts.
 */

const GUIDE_END = 'older records too).';

/** A pager that keeps its LESS, its words and what it was given, beside itself. */
function recordingPager(): { command: string; seen(): string[] | undefined; text(): string } {
  const dir = tempDir('petctl-pager-');
  const script = path.join(dir, 'pager');
  fs.writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "LESS=\${LESS-unset}" "$@" > "$0.seen"\ncat > "$0.text"\n`, { mode: 0o755 });
  return {
    command: script,
    seen: () => (fs.existsSync(`${script}.seen`) ? fs.readFileSync(`${script}.seen`, 'utf8').trimEnd().split('\n') : undefined),
    text: () => fs.readFileSync(`${script}.text`, 'utf8'),
  };
}

describe.concurrent('petctl help <topic> through a pager', () => {
  it('with PAGER and LESS unset, a long guide opens in less at its first screen; Ctrl-C is less\'s; q ends petctl with 0', async (t) => {
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
    const text = tty.text();
    // LESS=FRX: the first screen stays on the terminal after less ends.
    expect(text).toContain('Bulk import: petctl pets add --file');
    expect(text).not.toMatch(/EPIPE|error|Error/);
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
    // A long one does use it.
    const long = openTerminal(t, ['help', 'rate-limits'], { PAGER: pager.command }, { stdoutToTerminal: true });
    expect(await long.exitCode()).toBe(0);
    expect(pager.seen()).toEqual(['LESS=FRX']);
  });

  it('a pager that cannot start: the guide is printed as it is; one that quits before the end (head -n 1, true): exit 0 and no EPIPE', async (t) => {
    for (const pager of ['/nonexistent/pager -R', "'no such pager'"]) {
      const tty = openTerminal(t, ['help', 'bulk-import'], { PAGER: pager }, { stdoutToTerminal: true });
      expect(await tty.exitCode()).toBe(0);
      const text = tty.text();
      expect(text).toContain('Bulk import: petctl pets add --file');
      expect(text).toContain(GUIDE_END);
      // The guide quotes petctl's errors: none of Node's here, nor a stack.
      expect(text).not.toMatch(/EPIPE|ERR_|node:internal|^\s+at /m);
    }
    for (const pager of ['head -n 1', 'true']) {
      const tty = openTerminal(t, ['help', 'bulk-import'], { PAGER: pager }, { stdoutToTerminal: true });
      expect(await tty.exitCode()).toBe(0);
      const text = tty.text();
      expect(text).not.toContain(GUIDE_END);
      expect(text).not.toMatch(/EPIPE|error|Error/);
      if (pager === 'head -n 1') expect(text.trimEnd()).toBe('Bulk import: petctl pets add --file');
    }
  });
});
