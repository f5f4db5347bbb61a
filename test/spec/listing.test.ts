import { describe, expect, it } from 'vitest';
import { ENTERPRISE, PET, call, json, sandboxFor, setupE2e } from './sides';

type Pet = { id: number; name: string; categoryId: number; status?: string };

const BELLA = { id: 2, name: 'Bella', categoryId: 1 };

describe.concurrent('Listing › "Request body | none"', () => {
  it('the client sends GET without a body, flags as given (no limit unless asked), prints the Pets, follows rel="next"', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const page = Array.from({ length: 20 }, (_, i) => ({ id: i + 1, name: `Pet ${i + 1}`, categoryId: 1 }));
    server.reply(
      json(200, page),
      json(200, [PET, BELLA]),
      json(200, [PET]),
      json(200, PET),
      json(200, [PET], { link: '</v1/pets?limit=1&after=1>; rel="next"' }),
      json(200, [BELLA]),
    );
    // The page size is the service's: every animal answered is printed.
    const all = await petctl(['pets', 'list', '-o', 'ndjson']);
    expect(all.stdout.trim().split('\n')).toHaveLength(20);
    expect(JSON.parse((await petctl(['pets', 'list', '--limit', '100', '-o', 'json'])).stdout)).toEqual([PET, BELLA]);
    expect((await petctl(['pets', 'list', '--status', 'sold', '--limit', '1'])).code).toBe(0);
    expect((await petctl(['pets', 'get', '1'])).code).toBe(0);
    const walked = await petctl(['pets', 'list', '--all', '--limit', '1', '-o', 'ndjson']);
    expect(walked.code, walked.stderr).toBe(0);
    expect(walked.stdout.trim().split('\n').map((line) => JSON.parse(line).id)).toEqual([1, 2]);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1/pets',
      '/v1/pets?limit=100',
      '/v1/pets?limit=1&status=sold',
      '/v1/pets/1',
      '/v1/pets?limit=1',
      '/v1/pets?limit=1&after=1',
    ]);
    for (const request of server.requests) {
      expect(request.body).toBe('');
      expect(request.headers['content-type']).toBeUndefined();
      expect(request.headers['content-length'] ?? '0').toBe('0');
    }
    server.verify();
  });
});

describe.concurrent('Listing › "When limit is omitted, at most 20 animals are returned"', () => {
  it('the sandbox returns 20 of 25 animals when no limit is sent, and all 25 with limit=100', async (t) => {
    const { baseUrl } = await sandboxFor({}, t);
    const seeded = ((await call(baseUrl, '/pets?limit=100', { key: ENTERPRISE })).body as Pet[]).length;
    for (let n = seeded; n < 25; n += 1) {
      expect((await call(baseUrl, '/pets', { key: ENTERPRISE, body: { name: `Pet ${n}`, categoryId: 1 } })).status).toBe(201);
    }
    expect((await call(baseUrl, '/pets', { key: ENTERPRISE })).body).toHaveLength(20);
    expect((await call(baseUrl, '/pets?limit=100', { key: ENTERPRISE })).body).toHaveLength(25);
  });
});
