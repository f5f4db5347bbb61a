import { describe, expect, it, vi } from 'vitest';
import { startSandboxProcess } from '../helpers/sandbox-process';
import {
  BUSINESS,
  ENTERPRISE,
  FREE,
  PET,
  PRO,
  call,
  expectCleanError,
  fakeClock,
  json,
  limitHeaders,
  sandboxFor,
  setupE2e,
  type SandboxReply,
  WAIT,
} from './sides';

/** The client's waits are pinned at their seams in test/api/; here the built binary meets them once. */

const MINUTE = 60_000;
const RATE_LIMITED = { code: 'rate_limited', message: 'Too many requests', status: 429 };

/** Sends GET /pets with `key` until the answer is not 200; returns how many got 200 and the first other answer. */
async function exhaust(baseUrl: string, key: string): Promise<{ accepted: number; refusal: SandboxReply }> {
  let accepted = 0;
  for (;;) {
    const reply = await call(baseUrl, '/pets?limit=1', { key });
    if (reply.status !== 200) return { accepted, refusal: reply };
    accepted += 1;
  }
}

describe('Limits › "Free | 60 | 1,000"', () => {
  it('the sandbox accepts 60 requests a minute and 1,000 a day with the Free key, then answers 429 with Retry-After', { timeout: 60_000 }, async (t) => {
    const clock = fakeClock();
    const { baseUrl } = await sandboxFor({ now: clock.now }, t);
    const opened = clock.now();
    expect((await call(baseUrl, '/pets', { key: FREE })).status).toBe(200);
    clock.advance(9_000);
    const minute = await exhaust(baseUrl, FREE);
    expect(minute.accepted).toBe(59);
    expect(minute.refusal.status).toBe(429);
    expect(minute.refusal.body).toEqual({ code: 'rate_limited', message: expect.any(String), status: 429 });
    expect(minute.refusal.headers['x-ratelimit-limit']).toBe('60');
    // Retry-After says in whole seconds when the window reopens; a request after that time is answered.
    const retryAfter = Number(minute.refusal.headers['retry-after']);
    expect(retryAfter).toBe(Math.ceil((opened + MINUTE - clock.now()) / 1000));
    expect(Number(minute.refusal.headers['x-ratelimit-reset'])).toBe(Math.ceil((opened + MINUTE) / 1000));
    clock.advance(retryAfter * 1000);
    // The rest of the day, a minute's worth at a time, until a 429 that is not the minute's.
    let day = await exhaust(baseUrl, FREE);
    let accepted = 1 + minute.accepted + day.accepted;
    while (day.accepted > 0) {
      clock.advance(MINUTE + 1000);
      day = await exhaust(baseUrl, FREE);
      accepted += day.accepted;
    }
    expect(accepted).toBe(1000);
    expect(day.refusal.status).toBe(429);
    // The day's window, not the minute's: the wait is hours, not seconds.
    expect(Number(day.refusal.headers['retry-after'])).toBeGreaterThan(3600);
  });
});

describe.concurrent('Limits › "Higher limits come from a higher plan; Enterprise quotas are agreed individually"', () => {
  it('petctl sandbox prints every plan\'s quotas as the specification states them, and --enterprise-quota\'s, which it enforces', async (t) => {
    const sandbox = await startSandboxProcess(['--port', '0', '--enterprise-quota', '5/7'], { t });
    // Its first line is the base address, which ends in the version segment.
    expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await vi.waitFor(() => expect(sandbox.stdout()).toMatch(/sandbox-enterprise.*\n$/), WAIT);
    // The keys table: key → [per minute, per day].
    const keys = sandbox
      .stdout()
      .split('\n')
      .slice(2, -1)
      .map((line) => line.split(/\s+/))
      .map(([key, , perMinute, perDay]) => [key, [perMinute, perDay]]);
    expect(Object.fromEntries(keys)).toEqual({
      [FREE]: ['60', '1000'],
      [PRO]: ['300', '10000'],
      [BUSINESS]: ['1000', '100000'],
      [ENTERPRISE]: ['5', '7'],
    });
    const { accepted, refusal } = await exhaust(sandbox.baseUrl, ENTERPRISE);
    expect(accepted).toBe(5);
    expect(refusal.status).toBe(429);
    expect(refusal.headers['x-ratelimit-limit']).toBe('5');
  });
});

describe.concurrent('Limits › "Every API response carries these headers:"', () => {
  it('the sandbox sends X-RateLimit-Limit, -Remaining and -Reset on 200, 201, 400, 401, 404, 405, 413, 415 and 429', async (t) => {
    const { baseUrl } = await sandboxFor({}, t);
    const replies = [
      await call(baseUrl, '/pets', { key: FREE }),
      await call(baseUrl, '/pets', { key: FREE, body: { name: 'Rex', categoryId: 1 } }),
      await call(baseUrl, '/pets', { key: FREE, body: { name: 'Rex' } }),
      await call(baseUrl, '/pets', { key: null }),
      await call(baseUrl, '/pets/999', { key: FREE }),
      await call(baseUrl, '/pets/1', { key: FREE, method: 'DELETE' }),
      await call(baseUrl, '/pets', { key: FREE, body: { name: 'x'.repeat(70_000), categoryId: 1 } }),
      await call(baseUrl, '/pets', { key: FREE, method: 'POST', body: '{}', headers: { 'content-type': 'text/plain' } }),
      (await exhaust(baseUrl, FREE)).refusal,
    ];
    expect(replies.map((reply) => reply.status)).toEqual([200, 201, 400, 401, 404, 405, 413, 415, 429]);
    // Errors count too; the 401 counts against the client's address, not the key; none are left at the 429.
    expect([0, 1, 2, 4, 5, 6, 7, 8].map((i) => replies[i]!.headers['x-ratelimit-remaining'])).toEqual(['59', '58', '57', '56', '55', '54', '53', '0']);
    for (const reply of replies) {
      expect(reply.headers['x-ratelimit-limit'], String(reply.status)).toMatch(/^\d+$/);
      expect(reply.headers['x-ratelimit-remaining'], String(reply.status)).toMatch(/^\d+$/);
      expect(reply.headers['x-ratelimit-reset'], String(reply.status)).toMatch(/^\d{10}$/);
    }
  });
});

describe.concurrent('Limits › "X-RateLimit-Limit | The limit that applies to the caller"', () => {
  it('the client reports the limit, what is left and the reset as the server sent them (auth status)', async (t) => {
    const headers = limitHeaders(Date.now(), 17, 30, 300);
    const { petctl } = await setupE2e(t, json(200, [PET], headers));
    const result = await petctl(['auth', 'status', '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).rateLimit).toEqual({
      limit: 300,
      remaining: 17,
      reset: new Date(Number(headers['x-ratelimit-reset']) * 1000).toISOString(),
    });
  });
});

describe.concurrent('Limits › "Continuing to send requests after a 429 may lead to a temporary ban of the API key"', () => {
  it('the sandbox bans a Free key at the 11th request after its first 429, for 10 minutes, and then answers again', async (t) => {
    const clock = fakeClock();
    const { baseUrl } = await sandboxFor({ now: clock.now }, t);
    expect((await exhaust(baseUrl, FREE)).accepted).toBe(60);
    const codes = [];
    for (let n = 0; n < 11; n += 1) codes.push(((await call(baseUrl, '/pets', { key: FREE })).body as { code: string }).code);
    expect(codes).toEqual([...Array(10).fill('rate_limited'), 'key_banned']);
    const banned = await call(baseUrl, '/pets', { key: FREE });
    expect(banned.body).toMatchObject({ code: 'key_banned', status: 429 });
    expect([banned.headers['retry-after'], banned.headers['x-ratelimit-remaining']]).toEqual(['600', '0']);
    expect(banned.headers['x-ratelimit-reset']).toBe(String(Math.ceil((clock.now() + 10 * MINUTE) / 1000)));
    // Still banned once the minute has turned, with the rest of the ban, on every route.
    clock.advance(2 * MINUTE);
    const later = await call(baseUrl, '/pets/1', { key: FREE });
    expect([later.status, later.headers['retry-after'], later.headers.deprecation]).toEqual([429, '480', '@1735689600']);
    clock.advance(8 * MINUTE);
    const served = await call(baseUrl, '/pets', { key: FREE });
    expect([served.status, served.headers['x-ratelimit-remaining']]).toEqual([200, '59']);
  });

  it('the client sends nothing from a second command before the first one\'s Retry-After has passed', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(json(429, RATE_LIMITED, { 'retry-after': '3' }), json(200, [PET]));
    // The first cannot wait it out: exit 5 and the server's code.
    const first = await petctl(['--retries', '0', 'pets', 'list']);
    expect(first.code).toBe(5);
    expectCleanError(first);
    expect(first.stderr).toMatch(/\(rate_limited, HTTP 429\)$/m);
    const second = await petctl(['pets', 'list']);
    expect(second.code).toBe(0);
    // A timer may fire up to 50 ms early.
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(3000 - 50);
    server.verify();
  });
});
