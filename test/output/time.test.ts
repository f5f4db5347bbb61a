import { describe, expect, it } from 'vitest';
import { formatDuration, formatLocalDateTime, formatLocalTime, formatWait, formatWhen } from '../../src/output/time';

describe('formatWait', () => {
  it.each([
    [0, '0s'],
    [1, '1s'],
    [2_000, '2s'],
    [60_001, '61s'],
    [61_000, '61s'],
    [119_000, '119s'],
    [120_000, '2m00s'],
    [3_725_000, '1h02m'],
  ])('%d ms reads %s (rounded up)', (ms, text) => expect(formatWait(ms)).toBe(text));
});

describe('formatDuration', () => {
  it.each([
    [4_500, '4.5s'],
    [42_000, '42s'],
    [105_000, '1m45s'],
    [7_500_000, '2h05m'],
  ])('%d ms reads %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe('local times', () => {
  const at = new Date(2026, 10, 25, 14, 32, 5, 751).getTime();
  it('says the time of day alone on the same local day, to the second', () => {
    expect(formatLocalTime(at, new Date(2026, 10, 25, 9, 0, 0).getTime())).toBe('14:32:05');
  });
  it('adds the date on another day', () => {
    expect(formatLocalTime(at, new Date(2026, 10, 24, 23, 0, 0).getTime())).toBe('2026-11-25 14:32:05');
    expect(formatLocalDateTime(at)).toBe('2026-11-25 14:32:05');
  });
  it('formatWhen gives the moment and the wait', () => {
    expect(formatWhen(at, at - 61_000)).toBe('at 14:32:05, in 61s');
  });
});
