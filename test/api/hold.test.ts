import { describe, expect, it } from 'vitest';
import { HOLD_CAP_MS, HOLD_MIN_MS } from '../../src/api/waits';
import { type FakeAnswer, FakeTime, START, fakeClient, fakeService, memoryGate } from '../helpers/fake-core';

/** A 429 that names no usable time, at real lengths on a fake clock; two HttpClients on one gate are two processes. */

const RATE_LIMITED = { code: 'rate_limited', message: 'Too many requests', status: 429 };
const SECOND = 1000;

describe('the time a 429 names, read in order: Retry-After, the IETF RateLimit, X-RateLimit-Reset', () => {
  it.each<{ what: string; headers: Record<string, string>; ms: number }>([
    { what: 'Retry-After wins over RateLimit and X-RateLimit-Reset', headers: { 'retry-after': '7', ratelimit: '"w";r=0;t=20', 'x-ratelimit-reset': '30' }, ms: 7 * SECOND },
    // A reset in seconds from now is rounded up to the server's whole second: never early.
    { what: 'Retry-After 0 is absent: RateLimit t= next', headers: { 'retry-after': '0', ratelimit: '"w";r=0;t=20', 'x-ratelimit-reset': '30' }, ms: 20.75 * SECOND },
    { what: 'RateLimit-Policy alone names no time: the hold', headers: { 'ratelimit-policy': '"w";q=10;w=10' }, ms: HOLD_MIN_MS },
    { what: 'no headers at all: the hold', headers: {}, ms: HOLD_MIN_MS },
  ])('$what: the retry goes $ms ms later', async ({ headers, ms }) => {
    const time = new FakeTime();
    const { agent, requests } = fakeService(time, (_request, i) => (i === 0 ? { status: 429, headers, body: RATE_LIMITED } : { status: 200 }));
    // random 0: a jittered backoff would retry at once, so any wait seen here is the rule's.
    const { http, waits } = fakeClient(time, agent, memoryGate(() => time.now), { random: () => 0 });

    await time.run(http.send({ method: 'GET', path: '/pets' }));

    expect(requests.map((request) => request.at - START)).toEqual([0, ms]);
    expect(waits.map((wait) => wait.ms)).toEqual([ms]);
  });
});

/** A service whose limit is closed from the 6th request until `closedUntil`: 429s with no time in them. */
function closedService(time: FakeTime, closedUntil: number) {
  return fakeService(time, (request, i): FakeAnswer => (i >= 5 && request.at < closedUntil ? { status: 429, body: RATE_LIMITED } : { status: 201, body: {} }));
}

const paced = { method: 'POST', path: '/pets', body: { name: 'Rex', categoryId: 1 }, hooks: { paced: true } };

describe('a 429 without a usable time holds every request on the key', () => {
  it('4 paced requests in flight: all hold 5 s; one probe; a 429 to it holds 10 s; then one probe, and the rest only after it got through', async () => {
    const time = new FakeTime();
    // Closed for 12 s from the start: the first probe (at 5 s) meets a 429, the second (at 15 s) gets through.
    const { agent, requests } = closedService(time, START + 12 * SECOND);
    const { http, waits } = fakeClient(time, agent, memoryGate(() => time.now), { random: () => 0 });
    const rows = 12;
    let next = 0;
    // Each slot names its rows, so the service sees which slot sent what.
    const slot = async (name: string) => {
      while (next < rows) {
        next += 1;
        await http.send({ ...paced, body: { name, categoryId: 1 } });
      }
    };
    await time.run(Promise.all(['a', 'b', 'c', 'd'].map(slot)));

    const at = requests.map((request) => request.at - START);
    const refused = at.filter((ms, i) => i >= 5 && ms < 12 * SECOND);
    // The first 429 at 0 ms: at most the requests already sent then are refused, then exactly one probe at 5 s.
    expect(refused.filter((ms) => ms === 0).length).toBeLessThanOrEqual(4);
    expect(at.filter((ms) => ms > 0 && ms < 15 * SECOND)).toEqual([5 * SECOND]);
    // After the second hold (10 s, from the probe's 429 at 5 s): one slot probes at 15 s; the others wait for its answer.
    const slotsAt15 = new Set(requests.filter((request) => request.at - START === 15 * SECOND).map((request) => JSON.parse(request.body).name));
    expect(slotsAt15.size).toBe(1);
    expect(at.filter((ms) => ms > 15 * SECOND).length).toBeGreaterThan(0);
    expect(requests).toHaveLength(rows + refused.length);
    // Every retry waited a hold, never a random backoff: 5 s (the first 429 and those in flight with it), then 10 s.
    const retryWaits = waits.filter((wait) => /^retry \d+\/\d+ in [\d.]+s: HTTP 429$/.test(wait.why)).map((wait) => wait.ms);
    expect(retryWaits).toContain(10 * SECOND);
    for (const ms of retryWaits) expect([5 * SECOND, 10 * SECOND]).toContain(ms);
  });

  it('another process on the same state sends nothing during the hold, and does not probe beside the first', async () => {
    const time = new FakeTime();
    const { agent, requests } = closedService(time, START + 3 * SECOND);
    const gate = memoryGate(() => time.now);
    const a = fakeClient(time, agent, gate, { random: () => 0 });
    const b = fakeClient(time, agent, gate, { random: () => 0 });

    for (let i = 0; i < 5; i++) await time.run(a.http.send(paced));
    // A meets the closed limit; B starts a moment later and is held by what A recorded.
    const first = a.http.send(paced);
    const second = (async () => {
      await time.sleep(100);
      return b.http.send(paced);
    })();
    await time.run(Promise.all([first, second]));

    const at = requests.map((request) => request.at - START);
    expect(at.slice(5, 7)).toEqual([0, HOLD_MIN_MS]);
    // B's request went only after the probe (A's retry) had its answer: it was not a second probe.
    expect(requests[6]!.method).toBe('POST');
    expect(at[7]).toBeGreaterThan(HOLD_MIN_MS);
    expect(at).toHaveLength(8);
    expect(b.waits.some((wait) => /^rate limited \(HTTP 429\); waiting 5s/.test(wait.why))).toBe(true);
  });
});

describe('the hold’s length (rules.observe)', () => {
  it('starts at the larger of 5 s and what is left of the tracked window, doubles after a refused probe, up to a minute', async () => {
    const { observe } = await import('../../src/api/waits');
    const now = START;
    const window = { reset: Math.ceil(now / 1000) + 40, resetAt: now + 40 * SECOND, remaining: 3 };
    expect(observe({ window }, { status: 429 }, now)).toMatchObject({ blockedUntil: now + 40 * SECOND, holdMs: 40 * SECOND, reason: 'rate_limited' });
    expect(observe(undefined, { status: 429 }, now)).toMatchObject({ blockedUntil: now + HOLD_MIN_MS, holdMs: HOLD_MIN_MS });
    // The hold has ended; the probe meets a 429: twice as long.
    expect(observe({ holdMs: 20 * SECOND, blockedUntil: now - 1 }, { status: 429 }, now)).toMatchObject({ blockedUntil: now + 40 * SECOND, holdMs: 40 * SECOND });
    expect(observe({ holdMs: 40 * SECOND, blockedUntil: now - 1 }, { status: 429 }, now)).toMatchObject({ holdMs: HOLD_CAP_MS });
    // A 429 to a request sent before the hold began does not lengthen it.
    expect(observe({ holdMs: 5 * SECOND, blockedUntil: now + 4 * SECOND, reason: 'rate_limited' }, { status: 429 }, now)).toBeUndefined();
    // The probe got through: the hold is over.
    const over = observe({ holdMs: 5 * SECOND, blockedUntil: now - 1, reason: 'rate_limited', probeUntil: now + 500 }, { status: 201 }, now);
    expect(over).toBeDefined();
    expect(over).not.toHaveProperty('holdMs');
    expect(over).not.toHaveProperty('probeUntil');
  });
});
