import { describe, expect, it } from 'vitest';
import { ServerClock } from '../../../src/api/limits/headers';

describe('ServerClock', () => {
  const at = (ms: number) => new Date(ms).toUTCString();

  it('knows nothing without a usable Date header; an hour behind is an hour behind', () => {
    const now = Date.UTC(2026, 10, 25, 12, 0, 0);
    const clock = new ServerClock(() => now);
    expect(clock.observe(undefined)).toBeUndefined();
    expect(clock.observe('yesterday')).toBeUndefined();
    expect(clock.observe(at(now - 3_600_000))).toBe(now - 3_600_000);
  });

  it('takes the highest (Date - our clock) seen as the skew: a lower bound that tightens with every answer', () => {
    let now = Date.UTC(2026, 10, 25, 12, 0, 0) + 900;
    const clock = new ServerClock(() => now);
    // The server is exactly 5 s ahead; its Date is cut to the second.
    const serverDate = () => at(Math.floor((now + 5000) / 1000) * 1000);
    expect(clock.observe(serverDate())! - now).toBe(4100); // at .900 Date says "at least 4.1 s ahead"
    now += 300;
    expect(clock.observe(serverDate())! - now).toBe(4800); // at .200: at least 4.8 s
    now += 600;
    expect(clock.observe(serverDate())! - now).toBe(4800); // at .800 a looser bound does not replace a tighter one
    now += 250;
    expect(clock.observe(serverDate())! - now).toBe(4950); // at .050
  });
});
