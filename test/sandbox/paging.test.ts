import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSandbox, type RunningSandbox } from '../../src/sandbox/server';
import type { Pet } from '../../src/schemas/pet';
import { call, ENTERPRISE, start } from './helpers';

/**
 * The sandbox's paging (the specification shows none): a full page that is
 * not the last carries `Link: </v1/pets?limit=N&after=<last id>[&status=…]>; rel="next"`.
 */

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});

const get = (target: string) => call(sandbox.baseUrl, target, { key: ENTERPRISE });
const ids = (body: unknown) => (body as Pet[]).map((pet) => Number(pet.id));

/** `/v1/pets?…` from a Link header, made relative to the base URL. */
function nextTarget(link: string | undefined): string | undefined {
  const match = /^<\/v1(\/pets\?[^>]*)>; rel="next"$/.exec(link ?? '');
  return match?.[1];
}

describe('GET /v1/pets paging', () => {
  it('links to the next page in exactly the documented form, while more animals match', async () => {
    const first = await get('/pets?limit=5');
    expect(ids(first.body)).toEqual([1, 2, 3, 4, 5]);
    expect(first.headers.link).toBe('</v1/pets?limit=5&after=5>; rel="next"');
    const second = await get('/pets?limit=5&after=5');
    expect(ids(second.body)).toEqual([6, 7, 8, 9, 10]);
    expect(second.headers.link).toBe('</v1/pets?limit=5&after=10>; rel="next"');
    const last = await get('/pets?limit=5&after=10');
    expect(ids(last.body)).toEqual([11, 12]);
    expect(last.headers.link).toBeUndefined();
  });

  it('names the default limit (20) in the link and carries status along', async () => {
    const available = await get('/pets?status=available&limit=2');
    expect(ids(available.body)).toEqual([1, 4]);
    expect(available.headers.link).toBe('</v1/pets?limit=2&after=4&status=available>; rel="next"');
    const followed: number[] = [];
    let target: string | undefined = '/pets?status=available&limit=2';
    let pages = 0;
    while (target !== undefined) {
      const reply = await get(target);
      followed.push(...ids(reply.body));
      target = nextTarget(reply.headers.link);
      pages += 1;
    }
    expect(followed).toEqual([1, 4, 5, 7, 9, 11]);
    expect(pages).toBe(3);
  });

  it('follows pages across animals added meanwhile, missing none and repeating none', async () => {
    const fresh = await start();
    const added: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      const reply = await call(fresh.baseUrl, '/pets', { key: ENTERPRISE, body: { name: `n${i}`, categoryId: 1 } });
      added.push(Number((reply.body as Pet).id));
    }
    const first = await call(fresh.baseUrl, '/pets?limit=20', { key: ENTERPRISE });
    expect(first.headers.link).toBe('</v1/pets?limit=20&after=20>; rel="next"');
    await call(fresh.baseUrl, '/pets', { key: ENTERPRISE, body: { name: 'late', categoryId: 1 } });
    const second = await call(fresh.baseUrl, `${nextTarget(first.headers.link)}`, { key: ENTERPRISE });
    expect(ids(second.body)).toEqual(Array.from({ length: 20 }, (_, i) => 21 + i));
    expect(second.headers.link).toBe('</v1/pets?limit=20&after=40>; rel="next"');
    const third = await call(fresh.baseUrl, `${nextTarget(second.headers.link)}`, { key: ENTERPRISE });
    expect(ids(third.body)).toEqual([41, 42, 43]);
    expect(third.headers.link).toBeUndefined();
    expect(added.at(-1)).toBe(42);
  });

  it.each(['abc', '1.5', '007', '', '9223372036854775808', '1e3'])('answers 400 invalid_parameter for after=%j', async (after) => {
    const reply = await get(`/pets?after=${encodeURIComponent(after)}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 'invalid_parameter', status: 400 });
    expect((reply.body as { message: string }).message).toMatch(/after must be an int64/);
  });

  it('answers 400 invalid_parameter when after is given twice', async () => {
    const reply = await get('/pets?after=1&after=2');
    expect(reply.body).toMatchObject({ code: 'invalid_parameter' });
  });
});
