import { describe, expect, test } from 'vitest';
import { renderOptions } from '../../src/output/records';
import { type TestTerminalOptions, createTestTerminal } from '../helpers/terminal';

const settingsFor = (options: TestTerminalOptions) => renderOptions({ terminal: createTestTerminal(options).terminal });

describe('renderOptions', () => {
  test('a TTY: table, its width, colour from the environment', () => {
    expect(settingsFor({ stdoutTTY: true, width: 120, env: { TERM: 'xterm-256color' } })).toEqual({ tty: true, level: 2, width: 120 });
  });

  test('a pipe: no colour and no width, even with FORCE_COLOR', () => {
    expect(settingsFor({ width: 80, env: { FORCE_COLOR: '3' } })).toEqual({ tty: false, level: 0 });
  });

  test('--no-color on a TTY', () => {
    expect(settingsFor({ stdoutTTY: true, width: 80, env: { TERM: 'xterm' }, color: false })).toEqual({ tty: true, level: 0, width: 80 });
  });

  test('a TTY that reports no width: no truncation', () => {
    expect(settingsFor({ stdoutTTY: true, width: 0, env: { NO_COLOR: '1' } })).toEqual({ tty: true, level: 0 });
  });
});
