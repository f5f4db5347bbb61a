import { describe, expect, it } from 'vitest';

import { tempDir } from '../helpers/temp-dir';
import { call, ENTERPRISE, fakeClock, FREE, start, type Reply } from './helpers';

/**
 * The limiter's options and its shared counts, over HTTP. Its rules are in
 * rate-limiter.test.ts and rate-limit-book.test.ts; each rule's headers on the
 * wire are in test/spec/limits.test.ts.
 */

function code(reply: Reply): string | undefined {
  return (reply.body as { code?: string } | undefined)?.code;
}

describe('rate limits over HTTP', () => {
  it('uses banAfter and banMs as given', async () => {
    const clock = fakeClock();
    const { baseUrl } = await start({ now: clock.now, enterprisePerMinute: 2, banAfter: 1, banMs: 5_000 });
    const statuses: Array<[number, string | undefined, string | undefined]> = [];
    for (let i = 0; i < 5; i += 1) {
      const reply = await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE });
      statuses.push([reply.status, code(reply), reply.headers['retry-after']]);
    }
    expect(statuses).toEqual([
      [200, undefined, undefined],
      [200, undefined, undefined],
      [429, 'rate_limited', '60'],
      [429, 'rate_limited', '60'],
      [429, 'key_banned', '5'],
    ]);
  });

  it('shares counts between two servers on one data file, unless persistRateLimits is off', async () => {
    const clock = fakeClock();
    const dataFile = `${tempDir()}/sandbox.json`;
    const [one, two] = await Promise.all([start({ dataFile, now: clock.now }), start({ dataFile, now: clock.now })]);
    const separate = await start({ dataFile, now: clock.now, persistRateLimits: false });
    for (let i = 0; i < 30; i += 1) {
      expect((await call(one.baseUrl, '/pets?limit=1', { key: FREE })).status).toBe(200);
      expect((await call(two.baseUrl, '/pets?limit=1', { key: FREE })).status).toBe(200);
    }
    expect((await call(one.baseUrl, '/pets?limit=1', { key: FREE })).status).toBe(429);
    expect((await call(two.baseUrl, '/pets?limit=1', { key: FREE })).status).toBe(429);
    const own = await call(separate.baseUrl, '/pets?limit=1', { key: FREE });
    expect([own.status, own.headers['x-ratelimit-remaining']]).toEqual([200, '59']);
  });
});
