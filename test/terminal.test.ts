import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { type ColorInputs, colorLevel } from '../src/terminal';
import { createTestTerminal } from './helpers/terminal';

/** The one terminal module: what it answers for each mix of terminals and settings, its colour level, and its status line. */

const ERASE = '\r\x1b[K';

const ALL = { stdoutTTY: true, stderrTTY: true, stdinTTY: true };
type Facts = [options: Parameters<typeof createTestTerminal>[0], personWatching: boolean, canPrompt: boolean];

it.each<Facts>([
  [ALL, true, true],
  [{ ...ALL, stdoutTTY: false }, false, true],
  [{ ...ALL, stderrTTY: false }, false, false],
  [{ ...ALL, stdinTTY: false }, true, false],
  [{ ...ALL, noInput: true }, true, false],
  ...['1', 'true'].map((value): Facts => [{ ...ALL, env: { PETCTL_NO_INPUT: value } }, true, false]),
  ...['', 'false', '0'].map((value): Facts => [{ ...ALL, env: { PETCTL_NO_INPUT: value } }, true, true]),
])('the terminal facts: %o → personWatching %s, canPrompt %s', (options, personWatching, canPrompt) => {
  const { terminal } = createTestTerminal(options);
  const facts = { personWatching: terminal.personWatching(), canPrompt: terminal.canPrompt() };
  expect(facts).toEqual({ personWatching, canPrompt });
});

describe('the status line', () => {
  it('on a terminal: drawn in place, cut one column short, made safe, cleared; redrawn below a line printed', () => {
    const { terminal, stderr } = createTestTerminal({ stderrTTY: true, stderrColumns: 20 });
    terminal.status.show('first');
    terminal.status.show('a line longer than twenty columns');
    terminal.status.show('evil \x1b]0;title\x07');
    terminal.status.clear();
    terminal.status.clear();
    expect(stderr.writes).toEqual([`${ERASE}first`, `${ERASE}a line longer than `, `${ERASE}evil \\x1b]0;title\\x`, ERASE]);
    expect(stderr.text()).not.toContain('\n');
    // A line printed while it shows goes above it, and the status line is drawn again below.
    const printing = createTestTerminal({ stderrTTY: true });
    printing.terminal.status.show('waiting 3s');
    printing.terminal.status.print('a notice');
    expect(printing.stderr.writes).toEqual([`${ERASE}waiting 3s`, ERASE, 'a notice\n', `${ERASE}waiting 3s`]);
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

type Case = [description: string, inputs: Partial<ColorInputs>, expected: 0 | 1 | 2 | 3];

const cases: Case[] = [
  ['plain TTY', { env: { TERM: 'xterm' } }, 1],
  ['TTY without TERM', { env: {} }, 1],
  ['256-colour TERM', { env: { TERM: 'xterm-256color' } }, 2],
  ['COLORTERM=truecolor', { env: { TERM: 'xterm-256color', COLORTERM: 'truecolor' } }, 3],
  ['COLORTERM=24bit', { env: { TERM: 'xterm', COLORTERM: '24bit' } }, 3],
  ['not a TTY', { isTTY: false, env: { TERM: 'xterm-256color', COLORTERM: 'truecolor' } }, 0],
  ['not a TTY even with FORCE_COLOR=3', { isTTY: false, env: { FORCE_COLOR: '3' } }, 0],
  ['--no-color beats FORCE_COLOR', { noColorFlag: true, env: { FORCE_COLOR: '3' } }, 0],
  ['NO_COLOR with any value', { env: { NO_COLOR: 'yes please' } }, 0],
  ['NO_COLOR beats FORCE_COLOR', { env: { NO_COLOR: '1', FORCE_COLOR: '3' } }, 0],
  ['empty NO_COLOR is ignored', { env: { NO_COLOR: '', TERM: 'xterm' } }, 1],
  ['FORCE_COLOR=0', { env: { FORCE_COLOR: '0', TERM: 'xterm-256color', COLORTERM: 'truecolor' } }, 0],
  ['FORCE_COLOR=false', { env: { FORCE_COLOR: 'false', TERM: 'xterm-256color' } }, 0],
  ['FORCE_COLOR=1 caps a truecolor terminal', { env: { FORCE_COLOR: '1', COLORTERM: 'truecolor' } }, 1],
  ['FORCE_COLOR=2', { env: { FORCE_COLOR: '2', TERM: 'xterm' } }, 2],
  ['FORCE_COLOR=3', { env: { FORCE_COLOR: '3', TERM: 'xterm' } }, 3],
  ['FORCE_COLOR above 3 is capped', { env: { FORCE_COLOR: '7' } }, 3],
  ['FORCE_COLOR=true', { env: { FORCE_COLOR: 'true', TERM: 'dumb' } }, 1],
  ['FORCE_COLOR=1 beats TERM=dumb', { env: { FORCE_COLOR: '1', TERM: 'dumb' } }, 1],
  ['unrecognised FORCE_COLOR is ignored', { env: { FORCE_COLOR: 'always', TERM: 'xterm-256color' } }, 2],
  ['TERM=dumb beats COLORTERM', { env: { TERM: 'dumb', COLORTERM: 'truecolor' } }, 0],
];

describe('colorLevel', () => {
  it.each(cases)('%s', (_description, inputs, expected) => {
    expect(colorLevel({ isTTY: true, noColorFlag: false, env: {}, ...inputs })).toBe(expected);
  });

  it('reads only the env it is given, not process.env', () => {
    onTestFinished(() => void vi.unstubAllEnvs());
    vi.stubEnv('NO_COLOR', '1');
    expect(colorLevel({ isTTY: true, noColorFlag: false, env: { TERM: 'xterm' } })).toBe(1);
  });
});
