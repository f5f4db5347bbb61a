import { describe, expect, onTestFinished, test, vi } from 'vitest';
import { colorLevel, type ColorInputs } from '../../src/terminal';

type Case = [description: string, inputs: Partial<ColorInputs>, expected: 0 | 1 | 2 | 3];

const cases: Case[] = [
  ['plain TTY', { env: { TERM: 'xterm' } }, 1],
  ['TTY without TERM', { env: {} }, 1],
  ['256-colour TERM', { env: { TERM: 'xterm-256color' } }, 2],
  ['COLORTERM=truecolor', { env: { TERM: 'xterm-256color', COLORTERM: 'truecolor' } }, 3],
  ['COLORTERM=24bit', { env: { TERM: 'xterm', COLORTERM: '24bit' } }, 3],
  ['not a TTY', { isTTY: false, env: { TERM: 'xterm-256color', COLORTERM: 'truecolor' } }, 0],
  ['not a TTY even with FORCE_COLOR=1', { isTTY: false, env: { FORCE_COLOR: '1' } }, 0],
  ['not a TTY even with FORCE_COLOR=3', { isTTY: false, env: { FORCE_COLOR: '3' } }, 0],
  ['--no-color', { noColorFlag: true, env: { TERM: 'xterm-256color' } }, 0],
  ['--no-color beats FORCE_COLOR', { noColorFlag: true, env: { FORCE_COLOR: '3' } }, 0],
  ['NO_COLOR=1', { env: { NO_COLOR: '1', TERM: 'xterm-256color' } }, 0],
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
  ['TERM=dumb', { env: { TERM: 'dumb' } }, 0],
  ['TERM=dumb beats COLORTERM', { env: { TERM: 'dumb', COLORTERM: 'truecolor' } }, 0],
];

describe('colorLevel', () => {
  test.each(cases)('%s', (_description, inputs, expected) => {
    expect(colorLevel({ isTTY: true, noColorFlag: false, env: {}, ...inputs })).toBe(expected);
  });

  test('reads only the env it is given, not process.env', () => {
    onTestFinished(() => void vi.unstubAllEnvs());
    vi.stubEnv('NO_COLOR', '1');
    expect(colorLevel({ isTTY: true, noColorFlag: false, env: { TERM: 'xterm' } })).toBe(1);
  });
});
