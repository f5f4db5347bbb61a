import { describe, expect, it } from 'vitest';

import { tempDir } from '../helpers/temp-dir';
import { BUSINESS, call, ENTERPRISE, fakeClock, FREE, PRO, start, type Reply } from './helpers';

function code(reply: Reply): string | undefined {
  return (reply.body as { code?: string } | undefined)?.code;
}

describe('rate limits over HTTP', () => {
  it("answers the Free plan's 61st request inside a minute with 429, its headers and Retry-After", async () => {
    const clock = fakeClock();
    const { baseUrl } = await start({ now: clock.now });
    const reset = String(Math.ceil((clock.now() + 60_000) / 1000));
    for (let i = 1; i <= 60; i += 1) {
      const reply = await call(baseUrl, '/pets?limit=1', { key: FREE });
      expect(reply.status).toBe(200);
      expect(reply.headers['x-ratelimit-limit']).toBe('60');
      expect(reply.headers['x-ratelimit-remaining']).toBe(String(60 - i));
      expect(reply.headers['x-ratelimit-reset']).toBe(reset);
      clock.advance(500); // 60 requests over 30 s: still one minute
    }
    const refused = await call(baseUrl, '/pets?limit=1', { key: FREE });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ code: 'rate_limited', message: expect.stringMatching(/rate limit exceeded/), status: 429 });
    expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.headers['x-ratelimit-limit']).toBe('60');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['x-ratelimit-reset']).toBe(reset);
    // Another key is unaffected.
    expect((await call(baseUrl, '/pets?limit=1', { key: PRO })).status).toBe(200);
  });

  it('reports each plan its own per-minute limit', async () => {
    const { baseUrl } = await start({ enterprisePerMinute: 42 });
    const limits = [];
    for (const key of [FREE, PRO, BUSINESS, ENTERPRISE]) {
      limits.push((await call(baseUrl, '/pets?limit=1', { key })).headers['x-ratelimit-limit']);
    }
    expect(limits).toEqual(['60', '300', '1000', '42']);
  });

  it('puts the rate-limit headers on errors too, counting them', async () => {
    const { baseUrl } = await start();
    const replies = [
      await call(baseUrl, '/pets?limit=0', { key: FREE }),
      await call(baseUrl, '/pets/77777', { key: FREE }),
      await call(baseUrl, '/nowhere', { key: FREE }),
      await call(baseUrl, '/pets', { key: FREE, method: 'DELETE' }),
      await call(baseUrl, '/pets', { key: FREE, body: '{}', headers: { 'content-type': 'application/json' } }),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([400, 404, 404, 405, 400]);
    expect(replies.map((reply) => reply.headers['x-ratelimit-remaining'])).toEqual(['59', '58', '57', '56', '55']);
  });

  it('bans a key that keeps sending while limited, answering key_banned with the rest of the ban', async () => {
    const clock = fakeClock();
    const { baseUrl } = await start({ now: clock.now });
    for (let i = 0; i < 60; i += 1) expect((await call(baseUrl, '/pets?limit=1', { key: FREE })).status).toBe(200);
    // The first 429, then banAfter (10) more requests while limited: all rate_limited.
    for (let i = 0; i < 11; i += 1) {
      const reply = await call(baseUrl, '/pets?limit=1', { key: FREE });
      expect([reply.status, code(reply)]).toEqual([429, 'rate_limited']);
      clock.advance(1_000);
    }
    const banned = await call(baseUrl, '/pets?limit=1', { key: FREE });
    expect(banned.status).toBe(429);
    expect(banned.body).toEqual({ code: 'key_banned', message: expect.stringMatching(/banned/), status: 429 });
    expect(banned.headers['retry-after']).toBe('600');
    expect(banned.headers['x-ratelimit-remaining']).toBe('0');
    expect(banned.headers['x-ratelimit-reset']).toBe(String(Math.ceil((clock.now() + 600_000) / 1000)));

    // Still banned after the minute has turned, with the rest of the ban.
    clock.advance(120_000);
    const later = await call(baseUrl, '/pets/1', { key: FREE });
    expect([later.status, code(later), later.headers['retry-after']]).toEqual([429, 'key_banned', '480']);
    expect(later.headers.deprecation).toBe('@1735689600');

    clock.advance(480_000);
    const served = await call(baseUrl, '/pets?limit=1', { key: FREE });
    expect(served.status).toBe(200);
    expect(served.headers['x-ratelimit-remaining']).toBe('59');
  });

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

  it('applies the day limit, with the day window in Reset and Retry-After', async () => {
    const clock = fakeClock();
    const { baseUrl } = await start({ now: clock.now, enterprisePerMinute: 5, enterprisePerDay: 7 });
    const dayReset = Math.ceil((clock.now() + 86_400_000) / 1000);
    for (let i = 0; i < 5; i += 1) expect((await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE })).status).toBe(200);
    expect((await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE })).status).toBe(429);
    clock.advance(60_000);
    const sixth = await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE });
    expect([sixth.status, sixth.headers['x-ratelimit-remaining'], sixth.headers['x-ratelimit-reset']]).toEqual([200, '1', String(dayReset)]);
    expect((await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE })).status).toBe(200);
    clock.advance(60_000);
    const refused = await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE });
    expect([refused.status, code(refused), refused.headers['x-ratelimit-reset']]).toEqual([429, 'rate_limited', String(dayReset)]);
    expect(refused.headers['retry-after']).toBe(String(86_400 - 120));
  });

  it('serves a key again, never banning it, when it waits out Retry-After (fake clock, real minute)', async () => {
    // Three requests a minute; banAfter 2, so a single early retry per cycle is
    // tolerated but a third would ban. The clock moves only when the test says.
    const clock = fakeClock();
    const { baseUrl } = await start({ now: clock.now, enterprisePerMinute: 3, banAfter: 2 });
    for (let cycle = 0; cycle < 2; cycle += 1) {
      for (let i = 0; i < 3; i += 1) {
        expect((await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE })).status).toBe(200);
        clock.advance(1_000);
      }
      const refused = await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE });
      expect([refused.status, code(refused)]).toEqual([429, 'rate_limited']);
      // The rest of the minute: 60 s less the 3 s the requests took.
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBe(57);
      const early = await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE });
      expect(code(early)).toBe('rate_limited');
      clock.advance(retryAfter * 1000);
    }
    const served = await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE });
    expect(served.status).toBe(200);
    expect(served.headers['x-ratelimit-remaining']).toBe('2');
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
