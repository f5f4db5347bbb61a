import { describe, expect, it } from 'vitest';
import { HOLD_MIN_MS } from '../../src/api/waits';
import { RateLimitError, StateUnwritableError } from '../../src/errors';
import { FakeTime, fakeClient, fakeService, memoryGate } from '../helpers/fake-core';
import { limitHeaders } from '../helpers/scripted-server';

/** The send loop at real lengths on a fake clock; two HttpClients on one gate are two processes on one state file. */

const BANNED = { code: 'key_banned', message: 'API key banned', status: 429 };
const RATE_LIMITED = { code: 'rate_limited', message: 'Too many requests', status: 429 };

function setup(respond: Parameters<typeof fakeService>[1]) {
  const time = new FakeTime();
  const { agent, requests } = fakeService(time, respond);
  const gate = memoryGate(() => time.now);
  const t0 = time.now;
  return { time, agent, requests, gate, t0, client: (overrides = {}) => fakeClient(time, agent, gate, overrides) };
}

const list = { method: 'GET', path: '/pets' };
const gaps = (requests: Array<{ at: number }>) => requests.slice(1).map((request, i) => request.at - requests[i]!.at);

describe('retries and bans', () => {
  it('always 429 Retry-After 1: five requests 1 s apart (--retries 4), then exit 5 after 4 s of waiting', async () => {
    const { time, requests, t0, client } = setup((request) => ({ status: 429, headers: { 'retry-after': '1', ...limitHeaders(request.at, 0, 60) } }));
    const { http, waits } = client();
    const failure = await time.run(http.send(list)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as RateLimitError).code).toBe('rate_limited');
    expect((failure as RateLimitError).message).toMatch(/ \(5 attempts over 4s\)\. Try again at \d\d:\d\d:\d\d, in 1s$/);
    expect(gaps(requests)).toEqual([1000, 1000, 1000, 1000]);
    expect(waits.map((wait) => wait.why)).toEqual([1, 2, 3, 4].map((n) => `retry ${n}/4 in 1s: HTTP 429`));
    expect(time.now - t0).toBe(4000);
  });

  it('a new process that waited out a ban before sending takes the next key_banned as the second: no retry', async () => {
    const { time, requests, t0, client } = setup((request) => ({
      status: 429,
      headers: { 'retry-after': '30', ...limitHeaders(request.at, 0, 30) },
      body: BANNED,
    }));
    await expect(time.run(client({ maxWaitMs: 10_000 }).http.send(list))).rejects.toBeInstanceOf(RateLimitError);

    const next = client();
    const failure = await time.run(next.http.send(list)).catch((error: unknown) => error);
    expect((failure as RateLimitError).code).toBe('key_banned');
    // It waited for the ban's end, sent once, and stopped: the key has been banned twice.
    expect(requests.map((request) => request.at - t0)).toEqual([0, 30_000]);
    expect(next.waits.map((wait) => wait.ms)).toEqual([30_000]);
  });
});

describe('the time a 429 names, read in order: Retry-After, the IETF RateLimit, X-RateLimit-Reset', () => {
  // A reset in seconds from now is rounded up to the server's whole second: never early.
  const rateLimit = { ratelimit: '"w";r=0;t=20', 'x-ratelimit-reset': '30' };
  it.each<{ what: string; headers: Record<string, string>; ms: number }>([
    { what: 'Retry-After wins over RateLimit and X-RateLimit-Reset', headers: { 'retry-after': '7', ...rateLimit }, ms: 7_000 },
    { what: 'Retry-After 0 is absent: RateLimit t= next', headers: { 'retry-after': '0', ...rateLimit }, ms: 20_750 },
    { what: 'RateLimit-Policy alone names no time: the hold', headers: { 'ratelimit-policy': '"w";q=10;w=10' }, ms: HOLD_MIN_MS },
    { what: 'no headers at all: the hold', headers: {}, ms: HOLD_MIN_MS },
  ])('$what', async ({ headers, ms }) => {
    const answers = [{ status: 429, headers, body: RATE_LIMITED }, { status: 200 }];
    const { time, requests, t0, client } = setup((_request, i) => answers[Math.min(i, 1)]!);
    // random 0: a jittered backoff would retry at once, so any wait seen here is the rule's.
    const { http, waits } = client({ random: () => 0 });
    await time.run(http.send(list));
    expect(requests.map((request) => request.at - t0)).toEqual([0, ms]);
    expect(waits.map((wait) => wait.ms)).toEqual([ms]);
  });
});

describe('no request starts after another process recorded a 429, until its Retry-After', () => {
  it('a request that passed the gate before the 429 came is held by the gate asked again after its beforeSend', async () => {
    const { time, requests, t0, client } = setup((request, i) =>
      i === 1 ? { status: 429, headers: { 'retry-after': '2', ...limitHeaders(request.at, 0, 60) } } : { status: 200, headers: limitHeaders(request.at, 50, 60) },
    );
    // A first answer names the window: from then on both processes claim slots of it at once.
    await time.run(client().http.send(list));
    // Two processes on one state file: the first gets the 429 and records it, then gives up (--retries 0).
    const first = time.run(client({ retries: 0 }).http.send(list)).catch((error: unknown) => error);
    const second = client();
    const sent = time.run(
      second.http.send({
        ...list,
        // The journal's flush of the other process: it ends after the 429 is on record.
        hooks: { beforeSend: async () => void (await first) },
      }),
    );
    expect(await first).toBeInstanceOf(RateLimitError);
    await sent;
    expect(requests.map((request) => request.at - t0)).toEqual([0, 0, 2000]);
    expect(second.waits.map((wait) => wait.ms)).toEqual([2000]);
  });
});

describe('a state file that cannot be written', () => {
  const unwritable = new StateUnwritableError('/cfg/state.json', 'no space left on the device (ENOSPC)', undefined);
  const failingRecord = (gate: ReturnType<typeof memoryGate>) => ({ ...gate, record: async () => Promise.reject(unwritable) });

  it('never takes an answer away: a 201 stands; the next request is not sent, and says why; a 429 is not retried', async () => {
    const created = { status: 201, body: { id: 7, name: 'Rex', categoryId: 1 } };
    const { time, requests, gate, client } = setup((request, i) =>
      i === 0 ? created : { status: 429, headers: { 'retry-after': '1', ...limitHeaders(request.at, 0, 60) } },
    );
    const { http } = client({ gate: failingRecord(gate) });
    await expect(time.run(http.send({ method: 'POST', path: '/pets', body: { name: 'Rex', categoryId: 1 } }))).resolves.toMatchObject({ status: 201, body: { id: 7 } });
    await expect(time.run(http.send({ method: 'POST', path: '/pets', body: { name: 'Bo', categoryId: 1 } }))).rejects.toBe(unwritable);
    expect(requests).toHaveLength(1);
    // Another process: its 429 cannot be recorded for the others, so it is not retried.
    await expect(time.run(client({ gate: failingRecord(gate) }).http.send(list))).rejects.toBe(unwritable);
    expect(requests).toHaveLength(2);
  });
});
