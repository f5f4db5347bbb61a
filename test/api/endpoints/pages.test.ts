import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { nextLink, petPages } from '../../../src/api/endpoints/pages';
import { InvalidResponseError } from '../../../src/errors';
import { type FakeAnswer, FakeTime, ORIGIN, START, fakeClient, fakeService, memoryGate } from '../../helpers/fake-core';
import { json, limitHeaders, startScriptedServer } from '../../helpers/scripted-server';

const PAGE = 'http://127.0.0.1:4010/v1/pets?limit=2';

describe('nextLink (RFC 8288)', () => {
  it.each([
    ['</v1/pets?limit=2&after=2>; rel="next"', 'http://127.0.0.1:4010/v1/pets?limit=2&after=2'],
    ['<pets?after=2>; rel=next', 'http://127.0.0.1:4010/v1/pets?after=2'],
    ['</v1/pets?after=0>; rel="prev", </v1/pets?after=4>; rel="next last"', 'http://127.0.0.1:4010/v1/pets?after=4'],
    ['</v1/pets?after=4>; rel="NEXT"', 'http://127.0.0.1:4010/v1/pets?after=4'],
    ['<https://evil.example/steal>; rel="next"', 'https://evil.example/steal'],
    ['</v1/pets?a=1,2>; title="x, y"; rel="next"', 'http://127.0.0.1:4010/v1/pets?a=1,2'],
    // No header, or no rel="next", means no next page.
    [undefined, undefined],
    ['', undefined],
    ['</v1/pets>; rel="successor-version"', undefined],
  ])('%s', (header, expected) => {
    expect(nextLink(header, PAGE)).toBe(expected);
  });

  it('a header that cannot be parsed is an invalid response (exit 7)', () => {
    expect(() => nextLink('garbage', PAGE)).toThrow(InvalidResponseError);
  });
});

/** Pages of two animals under `/v1/pets?limit=2&after=N`, `count` in all, each linking to the next. */
function pagedService(time: FakeTime, count: number, headers: (index: number) => Record<string, string> = () => ({})) {
  return fakeService(time, (request, index): FakeAnswer => {
    const after = Number(new URL(request.path, ORIGIN).searchParams.get('after') ?? 0);
    const ids = [after + 1, after + 2].filter((id) => id <= count);
    const link: Record<string, string> = after + 2 < count ? { link: `</v1/pets?limit=2&after=${after + 2}>; rel="next"` } : {};
    return { status: 200, headers: { ...link, ...headers(index) }, body: ids.map((id) => ({ id, name: `Pet ${id}`, categoryId: 1 })) };
  });
}

describe('a walk with ahead (pets list --all, api --paginate)', () => {
  it("starts the next page's wait (its countdown counts the pages out) only once the page before is handed out, and sends it after the reset", async () => {
    const time = new FakeTime();
    // The first page leaves nothing in the window: the second waits for its reset, 2 s on.
    const { agent, requests } = pagedService(time, 4, (index) => (index === 0 ? limitHeaders(time.now, 0, 2) : {}));
    const { http } = fakeClient(time, agent, memoryGate(() => time.now));
    let handedOut = 0;
    const waits: number[] = [];
    const wait = async (ms: number) => {
      waits.push(handedOut);
      await time.sleep(ms);
    };
    await time.run(
      (async () => {
        for await (const page of petPages(http, { limit: 2 }, { ahead: true, hooks: { paced: true, wait } })) handedOut = page.number;
      })(),
    );
    expect(waits).toEqual([1]);
    expect(requests[1]!.at).toBeGreaterThanOrEqual((Math.ceil(START / 1000) + 2) * 1000);
  });

  it('requests no link it refuses, and without ahead (a walk that may break) nothing past the page handed out', async () => {
    const time = new FakeTime();
    const { agent, requests } = fakeService(time, () => ({ status: 200, headers: { link: '<https://elsewhere.test/v1/pets?after=2>; rel="next"' }, body: [] }));
    const { http } = fakeClient(time, agent, memoryGate(() => time.now));
    const walk = (async () => {
      for await (const page of petPages(http, { limit: 2 }, { ahead: true })) expect(page.number).toBe(1);
    })();
    await expect(time.run(walk)).rejects.toThrow(/page 1's next link points to another origin \(https:\/\/elsewhere\.test\)/);
    expect(requests).toHaveLength(1);

    const paged = pagedService(time, 6);
    const stopping = fakeClient(time, paged.agent, memoryGate(() => time.now));
    await time.run(
      (async () => {
        for await (const page of petPages(stopping.http, { limit: 2 })) if (page.number === 1) break;
      })(),
    );
    expect(paged.requests).toHaveLength(1);
  });

  it("sends the next page's request as soon as a page's head is in, before its body: over real HTTP", async () => {
    const server = await startScriptedServer();
    const dispatcher = new Agent();
    try {
      let bodyEnded = 0;
      server.reply(
        (_request, res) => {
          res.writeHead(200, { 'content-type': 'application/json', link: '</v1/pets?limit=2&after=2>; rel="next"' });
          res.write('[{"id":1,"name":"Pet 1","categoryId":1},');
          // The rest of the page once the next page's request is in; a client that waits for whole pages gets it after 5 s.
          void Promise.race([server.received(2), sleep(5000)]).then(() => {
            bodyEnded = Date.now();
            res.end('{"id":2,"name":"Pet 2","categoryId":1}]');
          });
        },
        json(200, [{ id: 3, name: 'Pet 3', categoryId: 1 }]),
      );
      const realTime = { baseUrl: server.baseUrl, dispatcher, now: Date.now, monotonic: () => performance.now(), wait: (ms: number) => sleep(ms) };
      // A window known from an earlier answer: no request waits for a probe's answer to be stored.
      const gate = memoryGate(Date.now);
      await gate.record({ status: 200, remaining: 100, reset: Math.ceil(Date.now() / 1000) + 60, resetAt: Date.now() + 60_000 });
      const { http } = fakeClient(new FakeTime(), dispatcher as never, gate, realTime);
      const ids: number[] = [];
      for await (const page of petPages(http, { limit: 2 }, { ahead: true })) ids.push(...page.body.map((pet) => Number(pet.id)));
      expect(ids).toEqual([1, 2, 3]);
      expect(server.requests.map((request) => request.url)).toEqual(['/v1/pets?limit=2', '/v1/pets?limit=2&after=2']);
      expect(server.requests[1]!.at).toBeLessThanOrEqual(bodyEnded);
    } finally {
      await dispatcher.close();
      await server.close();
    }
  });

  it('has the next page on the wire while a page is handed out slowly: every page once, in order, and never more than one page ahead', async () => {
    const time = new FakeTime();
    const { agent, requests } = pagedService(time, 10);
    const { http } = fakeClient(time, agent, memoryGate(() => time.now));
    const beyond: number[] = [];
    await time.run(
      (async () => {
        for await (const page of petPages(http, { limit: 2 }, { ahead: true })) {
          await time.sleep(1000);
          beyond.push(requests.length - page.number);
        }
      })(),
    );
    expect(beyond).toEqual([1, 1, 1, 1, 0]);
    expect(requests.map((request) => request.path)).toEqual(['/v1/pets?limit=2', ...[2, 4, 6, 8].map((after) => `/v1/pets?limit=2&after=${after}`)]);
  });
});
