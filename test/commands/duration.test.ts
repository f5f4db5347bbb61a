import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/commands/parsers';

describe('parseDuration (--cache)', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1d', 86_400_000],
    ['500ms', 500],
    ['1.5s', 1500],
    ['45', 45_000],
  ])('%s is %i ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'soon', '5 m', '-1s', '1w', 's', '0', '0s', '0.0001s'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(InvalidArgumentError);
  });
});
