import { describe, expect, it } from 'vitest';
import { createTestTerminal } from './helpers/terminal';

/** The one terminal module: what it answers for each mix of terminals and settings, and its status line. */

const ERASE = '\r\x1b[K';

describe('the terminal facts', () => {
  it.each([
    [{ stdoutTTY: true, stderrTTY: true, stdinTTY: true }, { personWatching: true, canPrompt: true }],
    [{ stdoutTTY: false, stderrTTY: true, stdinTTY: true }, { personWatching: false, canPrompt: true }],
    [{ stdoutTTY: true, stderrTTY: false, stdinTTY: true }, { personWatching: false, canPrompt: false }],
    [{ stdoutTTY: true, stderrTTY: true, stdinTTY: false }, { personWatching: true, canPrompt: false }],
    [{ stdoutTTY: true, stderrTTY: true, stdinTTY: true, noInput: true }, { personWatching: true, canPrompt: false }],
    [{ stdoutTTY: true, stderrTTY: true, stdinTTY: true, env: { PETCTL_NO_INPUT: '1' } }, { personWatching: true, canPrompt: false }],
    [{ stdoutTTY: true, stderrTTY: true, stdinTTY: true, env: { PETCTL_NO_INPUT: 'true' } }, { personWatching: true, canPrompt: false }],
    [{ stdoutTTY: true, stderrTTY: true, stdinTTY: true, env: { PETCTL_NO_INPUT: '' } }, { personWatching: true, canPrompt: true }],
    [{ stdoutTTY: true, stderrTTY: true, stdinTTY: true, env: { PETCTL_NO_INPUT: 'false' } }, { personWatching: true, canPrompt: true }],
    [{ stdoutTTY: true, stderrTTY: true, stdinTTY: true, env: { PETCTL_NO_INPUT: '0' } }, { personWatching: true, canPrompt: true }],
  ])('%o → %o', (options, expected) => {
    const { terminal } = createTestTerminal(options);
    expect({ personWatching: terminal.personWatching(), canPrompt: terminal.canPrompt() }).toEqual(expected);
  });
});

describe('the status line', () => {
  it('on a terminal: drawn and replaced in place, cut one column short of the width, made safe, erased by clear', () => {
    const { terminal, stderr } = createTestTerminal({ stderrTTY: true, stderrColumns: 20 });
    terminal.status.show('first');
    terminal.status.show('a line longer than twenty columns');
    terminal.status.show('evil \x1b]0;title\x07');
    terminal.status.clear();
    terminal.status.clear();
    expect(stderr.writes).toEqual([`${ERASE}first`, `${ERASE}a line longer than `, `${ERASE}evil \\x1b]0;title\\x`, ERASE]);
    expect(stderr.text()).not.toContain('\n');
  });

  it('a line printed while it shows goes above it, and the status line is drawn again below', () => {
    const { terminal, stderr } = createTestTerminal({ stderrTTY: true });
    terminal.status.show('waiting 3s');
    terminal.status.print('a notice');
    expect(stderr.writes).toEqual([`${ERASE}waiting 3s`, ERASE, 'a notice\n', `${ERASE}waiting 3s`]);
  });

  it('off a terminal: nothing is drawn, printed lines are plain lines', () => {
    const { terminal, stderr } = createTestTerminal({ stdoutTTY: true });
    expect(terminal.status.live).toBe(false);
    terminal.status.show('waiting 3s');
    terminal.status.print('a notice');
    terminal.status.clear();
    expect(stderr.writes).toEqual(['a notice\n']);
  });
});
