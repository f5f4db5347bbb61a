import { expect, it } from 'vitest';
import { formatDuration, formatLocalDateTime, formatWait } from '../../src/output/time';

it.each([
  [0, '0s'],
  [1, '1s'],
  [60_001, '61s'],
  [119_000, '119s'],
  [120_000, '2m00s'],
  [3_725_000, '1h02m'],
])('formatWait: %d ms reads %s (rounded up)', (ms, text) => expect(formatWait(ms)).toBe(text));

it.each([
  [4_500, '4.5s'],
  [42_000, '42s'],
  [105_000, '1m45s'],
  [7_500_000, '2h05m'],
])('formatDuration: %d ms reads %s', (ms, text) => expect(formatDuration(ms)).toBe(text));

// The time alone on the same day, else with its date: waits.test.ts's messages ("Try again at 14:32:05, in 61s").
it('local times: formatLocalDateTime always adds the date', () => {
  expect(formatLocalDateTime(new Date(2026, 10, 25, 14, 32, 5, 751).getTime())).toBe('2026-11-25 14:32:05');
});
