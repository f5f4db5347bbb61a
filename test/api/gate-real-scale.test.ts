import { describe, expect, it } from 'vitest';
import type { RequestHooks } from '../../src/api/request';
import { type KeyRateState, checkRateLimit, rateLimitPolicy } from '../../src/sandbox/rate-limiter';
import { RateLimitError } from '../../src/errors';
import { FakeTime, fakeClient, fakeService, memoryGate } from '../helpers/fake-core';

/** The real HTTP core pacing an import against the sandbox's limiter, at the real minute and day on a fake clock. */

const FREE = { perMinute: 60, perDay: 1000 };
const MINUTE = 60_000;

function limitedService(limits: { perMinute: number; perDay: number }) {
  const time = new FakeTime();
  const policy = rateLimitPolicy();
  let state: KeyRateState | undefined;
  let id = 0;
  const statuses: number[] = [];
  const { agent, requests } = fakeService(time, (request) => {
    const outcome = checkRateLimit(state, limits, policy, time.now);
    state = outcome.state;
    const { decision } = outcome;
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(decision.limit),
      'x-ratelimit-remaining': String(decision.remaining),
      'x-ratelimit-reset': String(decision.resetEpochSeconds),
      date: new Date(time.now).toUTCString(),
    };
    if (!decision.allowed) {
      statuses.push(429);
      headers['retry-after'] = String(decision.retryAfterSeconds);
      return { status: 429, headers, body: { code: decision.banned ? 'key_banned' : 'rate_limited', message: 'limited', status: 429 } };
    }
    statuses.push(request.method === 'POST' ? 201 : 200);
    if (request.method === 'GET') return { status: 200, headers, body: [] };
    id += 1;
    return { status: 201, headers, body: { id, ...JSON.parse(request.body) } };
  });
  const gate = memoryGate(() => time.now);
  return { time, agent, requests, gate, statuses };
}

/** `rows` paced POSTs, `concurrency` at a time, as bulk import sends them; stops at the first error, like the runner. */
async function importRows(http: ReturnType<typeof fakeClient>['http'], rows: number, concurrency = 4): Promise<{ created: number; stoppedBy?: unknown }> {
  let next = 0;
  let created = 0;
  let stoppedBy: unknown;
  const hooks: RequestHooks = { paced: true };
  const slot = async () => {
    while (next < rows && stoppedBy === undefined) {
      const row = (next += 1);
      try {
        await http.send({ method: 'POST', path: '/pets', body: { name: `row-${row}`, categoryId: 1 }, hooks });
        created += 1;
      } catch (error) {
        stoppedBy ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, slot));
  return { created, stoppedBy };
}

describe('a bulk import on the Free plan at its real minute', () => {
  it.each([{ maxWaitMs: 60_000 }, { maxWaitMs: 1000 }, { maxWaitMs: 0 }])(
    '150 rows with --max-wait $maxWaitMs: every row, at most one 429, three windows (the minute waits are the pace)',
    async ({ maxWaitMs }) => {
      const { time, agent, requests, gate, statuses } = limitedService(FREE);
      const t0 = time.now;
      const { http, waits } = fakeClient(time, agent, gate, { maxWaitMs });
      const outcome = await time.run(importRows(http, 150));

      expect(outcome.stoppedBy).toBeUndefined();
      expect(outcome.created).toBe(150);
      expect(statuses.filter((status) => status === 429).length).toBeLessThanOrEqual(1);
      // 60 + 60 + 30: two full windows waited for, and no more.
      expect(time.now - t0).toBeGreaterThanOrEqual(2 * MINUTE);
      expect(time.now - t0).toBeLessThan(2 * MINUTE + 5000);
      expect(waits.some((wait) => wait.ms > 50_000 && /for the window to reopen/.test(wait.why))).toBe(true);
      expect(requests.filter((request) => request.method === 'POST')).toHaveLength(150 + statuses.filter((status) => status === 429).length);
    },
  );
});

describe('the day quota at its real length', () => {
  it('an import stops after the day’s 50 with quota_exhausted and the reset a day away; a single command then sends nothing', async () => {
    const { time, agent, requests, gate, statuses } = limitedService({ perMinute: 1000, perDay: 50 });
    const t0 = time.now;
    const outcome = await time.run(importRows(fakeClient(time, agent, gate).http, 80));

    expect(outcome.created).toBe(50);
    expect(outcome.stoppedBy).toBeInstanceOf(RateLimitError);
    const stop = outcome.stoppedBy as RateLimitError;
    expect(stop.code).toBe('quota_exhausted');
    expect(stop.stop).toMatchObject({ kind: 'day_quota', by: 'gate' });
    expect(stop.retryAt! - t0).toBeGreaterThan(23 * 60 * MINUTE);
    expect(statuses.filter((status) => status === 429).length).toBeLessThanOrEqual(1);
    expect(time.now - t0).toBeLessThan(5000);

    const sent = requests.length;
    const single = await time.run(fakeClient(time, agent, gate).http.send({ method: 'GET', path: '/pets' })).catch((error: unknown) => error);
    expect((single as RateLimitError).code).toBe('quota_exhausted');
    expect((single as RateLimitError).message).toMatch(/^the daily quota is used up; nothing sent\. Try again at .+, in 2[34]h\d\dm$/);
    expect(requests).toHaveLength(sent);
  });
});
