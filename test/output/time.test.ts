import { describe, expect, it } from 'vitest';
import { formatDuration, formatLocalDateTime, formatWait } from '../../src/output/time';

describe('formatWait', () => {
  it.each([
    [0, '0s'],
    [1, '1s'],
    [60_001, '61s'],
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

// A moment on the same local day as the time alone, on another day with its date, and formatWhen's moment and
// wait: waits.test.ts's messages ("Try again at 14:32:05, in 61s", "at 2026-11-26 14:31:04, in 24h00m").
describe('local times', () => {
  it('formatLocalDateTime always adds the date', () => {
    expect(formatLocalDateTime(new Date(2026, 10, 25, 14, 32, 5, 751).getTime())).toBe('2026-11-25 14:32:05');
  });
});
