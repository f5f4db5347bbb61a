import { describe, expect, it } from 'vitest';

import type { Pet } from '../../src/schemas/pet';
import { call, ENTERPRISE, start, type Reply } from './helpers';

/** The sandbox's paging (the specification shows none); its after= refusals are server.test.ts's. */

const KEY = ENTERPRISE;
const ids = (reply: Reply) => (reply.body as Pet[]).map((pet) => Number(pet.id));
const next = (reply: Reply) => /^<\/v1(\/pets\?[^>]*)>; rel="next"$/.exec(reply.headers.link ?? '')?.[1];

describe('GET /v1/pets paging', () => {
  it('carries status along; a full page with no more matches after it has no link', async () => {
    const { baseUrl } = await start();
    const pages: Array<[number[], string | undefined]> = [];
    for (let target: string | undefined = '/pets?status=available&limit=2'; target !== undefined; ) {
      const reply = await call(baseUrl, target, { key: KEY });
      pages.push([ids(reply), reply.headers.link]);
      target = next(reply);
    }
    expect(pages).toEqual([
      [[1, 4], '</v1/pets?limit=2&after=4&status=available>; rel="next"'],
      [[5, 7], '</v1/pets?limit=2&after=7&status=available>; rel="next"'],
      [[9, 11], undefined],
    ]);
  });

  it('follows pages across animals added meanwhile, missing none, repeating none, naming the default limit', async () => {
    const fresh = await start();
    const add = (name: string) => call(fresh.baseUrl, '/pets', { key: KEY, body: { name, categoryId: 1 } });
    for (let i = 0; i < 30; i += 1) await add(`n${i}`);
    const first = await call(fresh.baseUrl, '/pets', { key: KEY });
    expect(first.headers.link).toBe('</v1/pets?limit=20&after=20>; rel="next"');
    expect((await add('late')).body).toMatchObject({ id: 43 });
    const second = await call(fresh.baseUrl, next(first)!, { key: KEY });
    expect(ids(second)).toEqual(Array.from({ length: 20 }, (_, i) => 21 + i));
    expect(second.headers.link).toBe('</v1/pets?limit=20&after=40>; rel="next"');
    const third = await call(fresh.baseUrl, next(second)!, { key: KEY });
    expect([ids(third), third.headers.link]).toEqual([[41, 42, 43], undefined]);
  });
});
