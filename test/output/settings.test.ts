import { describe, expect, test } from 'vitest';
import { renderOptions, type OutputSettingsSource } from '../../src/output/settings';

function source(stdout: OutputSettingsSource['io']['stdout'], env: Record<string, string> = {}, color = true) {
  return { io: { stdout }, env, globals: { color } };
}

describe('renderOptions', () => {
  test('a TTY: table, its width, colour from the environment', () => {
    expect(renderOptions(source({ isTTY: true, columns: 120 }, { TERM: 'xterm-256color' }))).toEqual({
      tty: true,
      level: 2,
      width: 120,
    });
  });

  test('a pipe: no colour and no width, even with FORCE_COLOR', () => {
    expect(renderOptions(source({ columns: 80 }, { FORCE_COLOR: '3' }))).toEqual({ tty: false, level: 0 });
  });

  test('--no-color on a TTY', () => {
    expect(renderOptions(source({ isTTY: true, columns: 80 }, { TERM: 'xterm' }, false))).toEqual({
      tty: true,
      level: 0,
      width: 80,
    });
  });

  test('a TTY that reports no width: no truncation', () => {
    expect(renderOptions(source({ isTTY: true, columns: 0 }, { NO_COLOR: '1' }))).toEqual({ tty: true, level: 0 });
  });
});
