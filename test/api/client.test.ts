import { describe, expect, it } from 'vitest';
import type { RequestHooks } from '../../src/api/request';
import { RateLimitError, StateUnwritableError } from '../../src/errors';
import { FakeTime, fakeClient, fakeService, memoryGate } from '../helpers/fake-core';
import { limitHeaders } from '../helpers/scripted-server';

/** The send loop at real lengths on a fake clock; two HttpClients on one gate are two processes on one state file. */

const BANNED = { code: 'key_banned', message: 'API key banned', status: 429 };

function setup(respond: Parameters<typeof fakeService>[1]) {
  const time = new FakeTime();
  const { agent, requests } = fakeService(time, respond);
  const gate = memoryGate(() => time.now);
  const t0 = time.now;
  return { time, agent, requests, gate, t0, client: (overrides = {}) => fakeClient(time, agent, gate, overrides) };
}

const list = { method: 'GET', path: '/pets' };
const gaps = (requests: Array<{ at: number }>) => requests.slice(1).map((request, i) => request.at - requests[i]!.at);

describe('after a 429 with Retry-After, the next request goes exactly then', () => {
  it.each([
    { what: 'Retry-After 2 with Remaining 0 and Reset now+60: the retry goes 2 s later, not at the reset', retryAfter: '2', reset: 60, gap: 2000 },
    { what: 'Retry-After 2 with Reset now+70 (past --max-wait): retried after 2 s, exit 0', retryAfter: '2', reset: 70, gap: 2000 },
    { what: 'Retry-After 10 with Reset now+2: nothing before 10 s in this process', retryAfter: '10', reset: 2, gap: 10_000 },
  ])('$what', async ({ retryAfter, reset, gap }) => {
    const { time, requests, client } = setup((request, i) =>
      i === 0 ? { status: 429, headers: { 'retry-after': retryAfter, ...limitHeaders(request.at, 0, reset) } } : { status: 200 },
    );
    const { http, waits } = client();
    await expect(time.run(http.send(list))).resolves.toMatchObject({ status: 200 });
    expect(gaps(requests)).toEqual([gap]);
    expect(waits.map((wait) => wait.why)).toEqual([`retry 1/4 in ${gap / 1000}s: HTTP 429`]);
  });

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

  it.each([
    { what: 'after --retries 0, a new process sends at the remembered Retry-After (3 s), not at the reset', retryAfter: 3, reset: 60, later: 0 },
    { what: 'Retry-After 10 with Reset now+2: nothing before 10 s in the next process', retryAfter: 10, reset: 2, later: 3000 },
  ])('$what', async ({ retryAfter, reset, later }) => {
    const { time, requests, t0, client } = setup((request, i) =>
      i === 0 ? { status: 429, headers: { 'retry-after': String(retryAfter), ...limitHeaders(request.at, 0, reset) } } : { status: 200 },
    );
    await expect(time.run(client({ retries: 0 }).http.send(list))).rejects.toBeInstanceOf(RateLimitError);
    // The next process starts `later` ms after the first one ended.
    time.now += later;
    const next = client();
    await time.run(next.http.send(list));
    expect(requests.map((request) => request.at - t0)).toEqual([0, retryAfter * 1000]);
    expect(next.waits).toHaveLength(1);
  });
});

describe('a 200 that leaves nothing', () => {
  it('Remaining 0, Reset now+5: the next process waits for the reset; with --max-wait 1 it ends at once, sending nothing', async () => {
    const { time, requests, client } = setup((request) => ({ status: 200, headers: limitHeaders(request.at, 0, 5) }));
    await time.run(client().http.send(list));
    const resetAt = (Math.ceil(requests[0]!.at / 1000) + 5) * 1000;

    const impatient = client({ maxWaitMs: 1000 });
    const failure = await time.run(impatient.http.send(list)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as RateLimitError).code).toBe('rate_limited');
    expect((failure as RateLimitError).message).toMatch(/^rate limit reached; nothing sent\. Try again at \d\d:\d\d:\d\d, in [56]s$/);
    expect(impatient.waits).toEqual([]);
    expect(requests).toHaveLength(1);

    const patient = client();
    await time.run(patient.http.send(list));
    expect(requests[1]!.at).toBe(resetAt);
  });
});

describe('bans', () => {
  const banned = (request: { at: number }) => ({ status: 429, headers: { 'retry-after': '30', ...limitHeaders(request.at, 0, 30) }, body: BANNED });

  it('with --max-wait 60 the ban is waited out and retried once; the second ban ends it', async () => {
    const { time, requests, t0, client } = setup(banned);
    const failure = await time.run(client().http.send(list)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as RateLimitError).code).toBe('key_banned');
    expect((failure as RateLimitError).message).toMatch(/^the API key is banned until \d\d:\d\d:\d\d \(in 30s\); petctl sends nothing before then \(2 attempts over 30s\)$/);
    expect(requests.map((request) => request.at - t0)).toEqual([0, 30_000]);
  });

  it('with --max-wait 10 it ends at once; a new process sends nothing before the ban ends', async () => {
    const { time, requests, t0, client } = setup(banned);
    const failure = await time.run(client({ maxWaitMs: 10_000 }).http.send(list)).catch((error: unknown) => error);
    expect((failure as RateLimitError).code).toBe('key_banned');
    expect(requests).toHaveLength(1);
    expect(time.now).toBe(t0);

    const next = await time.run(client({ maxWaitMs: 10_000 }).http.send(list)).catch((error: unknown) => error);
    expect((next as RateLimitError).code).toBe('key_banned');
    expect((next as RateLimitError).message).toMatch(/^the API key is banned until \d\d:\d\d:\d\d \(in 30s\); petctl sends nothing before then$/);
    expect(requests).toHaveLength(1);

    await time.run(client().http.send(list)).catch(() => {});
    expect(requests[1]!.at - t0).toBe(30_000);
  });

  it('a new process that waited out a ban before sending takes the next key_banned as the second: no retry', async () => {
    const { time, requests, t0, client } = setup(banned);
    await expect(time.run(client({ maxWaitMs: 10_000 }).http.send(list))).rejects.toBeInstanceOf(RateLimitError);

    const next = client();
    const failure = await time.run(next.http.send(list)).catch((error: unknown) => error);
    expect((failure as RateLimitError).code).toBe('key_banned');
    // It waited for the ban's end, sent once, and stopped: the key has been banned twice.
    expect(requests.map((request) => request.at - t0)).toEqual([0, 30_000]);
    expect(next.waits.map((wait) => wait.ms)).toEqual([30_000]);
  });
});

describe('no request starts after a 429 is read, until its Retry-After', () => {
  it('paced requests in flight; the third POST gets 429 Retry-After 2: later POSTs wait the 2 s, then all rows go', async () => {
    const time = new FakeTime();
    const t0 = time.now;
    const resetEpoch = Math.ceil(t0 / 1000) + 60;
    const reset = { 'x-ratelimit-limit': '300', 'x-ratelimit-reset': String(resetEpoch) };
    let posts = 0;
    const { agent, requests } = fakeService(time, (request) => {
      posts += 1;
      if (posts === 3) return { status: 429, headers: { ...reset, 'x-ratelimit-remaining': '0', 'retry-after': '2' } };
      return { status: 201, headers: { ...reset, 'x-ratelimit-remaining': String(300 - posts) }, body: { id: posts, ...JSON.parse(request.body) } };
    });
    const gate = memoryGate(() => time.now);
    const { http, waits } = fakeClient(time, agent, gate);
    /** How many requests the service had received when the client read the 429. */
    let sentBefore429: number | undefined;
    let readAt: number | undefined;
    const rows = Array.from({ length: 10 }, (_, i) => ({ name: `row-${i}`, categoryId: 1 }));
    const slot = async () => {
      for (let row = rows.shift(); row; row = rows.shift()) {
        const hooks: RequestHooks = {
          paced: true,
          // The journal's flush: the turns of the event loop in which the old core let a POST past a 429.
          beforeSend: async () => {
            for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
          },
          onAnswer: (answer) => {
            if (answer.status === 429 && sentBefore429 === undefined) {
              sentBefore429 = requests.length;
              readAt = time.now;
            }
          },
        };
        await http.send({ method: 'POST', path: '/pets', body: row, hooks });
      }
    };
    await time.run(Promise.all([slot(), slot(), slot(), slot()]));

    expect(requests).toHaveLength(11);
    expect(new Set(requests.map((request) => JSON.parse(request.body).name)).size).toBe(10);
    for (const request of requests.slice(sentBefore429)) expect(request.at).toBeGreaterThanOrEqual(readAt! + 2000);
    expect(time.now - readAt!).toBe(2000);
    // Every waiting request waited for the same moment: the notice (deduplicated by the session) is about one wait.
    expect(new Set(waits.filter((wait) => wait.ms >= 1000).map((wait) => wait.at + wait.ms))).toEqual(new Set([readAt! + 2000]));
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

  it('never takes an answer away: a 201 stands; the next request is not sent, and says why', async () => {
    const { time, requests, gate, client } = setup(() => ({ status: 201, body: { id: 7, name: 'Rex', categoryId: 1 } }));
    const { http } = client({ gate: failingRecord(gate) });
    await expect(time.run(http.send({ method: 'POST', path: '/pets', body: { name: 'Rex', categoryId: 1 } }))).resolves.toMatchObject({ status: 201, body: { id: 7 } });
    await expect(time.run(http.send({ method: 'POST', path: '/pets', body: { name: 'Bo', categoryId: 1 } }))).rejects.toBe(unwritable);
    expect(requests).toHaveLength(1);
  });

  it('a 429 that cannot be recorded for the other processes is not retried', async () => {
    const { time, requests, gate, client } = setup((request) => ({ status: 429, headers: { 'retry-after': '1', ...limitHeaders(request.at, 0, 60) } }));
    const { http } = client({ gate: failingRecord(gate) });
    await expect(time.run(http.send(list))).rejects.toBe(unwritable);
    expect(requests).toHaveLength(1);
  });
});
