import { describe, expect, it } from 'vitest';
import { ENTERPRISE, PET, call, expectCleanError, json, sandboxFor, setupE2e } from './sides';

/** Endpoints › List all animals: `GET /pets`, on the client and on the sandbox. */

type Pet = { id: number; name: string; categoryId: number; status?: string };

describe.concurrent('Listing › "Request body | none"', () => {
  it('the client sends no body and no Content-Type with GET /pets, nor with GET /pets/{petId}', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(json(200, [PET]), json(200, PET));
    expect((await petctl(['pets', 'list', '--status', 'sold', '--limit', '3'])).code).toBe(0);
    expect((await petctl(['pets', 'get', '1'])).code).toBe(0);
    expect(server.requests).toHaveLength(2);
    for (const request of server.requests) {
      expect(request.body).toBe('');
      expect(request.headers['content-type']).toBeUndefined();
      expect(request.headers['content-length'] ?? '0').toBe('0');
    }
  });
});

describe.concurrent('Listing › "Success | 200, body is Pets (array of Pet)"', () => {
  it('the client prints the array it is given, and refuses a 200 whose body is not an array of Pet (exit 7)', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(json(200, [PET, { id: 2, name: 'Bella', categoryId: 1 }]), json(200, { pets: [PET] }));
    const listed = await petctl(['pets', 'list', '-o', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([PET, { id: 2, name: 'Bella', categoryId: 1 }]);
    const refused = await petctl(['pets', 'list']);
    expect(refused.code).toBe(7);
    expectCleanError(refused);
    expect(refused.stderr).toMatch(/^error: .*\(invalid_response, HTTP 200\)$/m);
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

  it('the client leaves the page size to the service: no limit sent, every animal answered is printed', async (t) => {
    const page = Array.from({ length: 20 }, (_, i) => ({ id: i + 1, name: `Pet ${i + 1}`, categoryId: 1 }));
    const { server, petctl } = await setupE2e(t, json(200, page));
    const result = await petctl(['pets', 'list', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(0);
    // Neither limit nor status is sent when no flag asks for one.
    expect(server.requests[0]!.query).toEqual({});
    expect(result.stdout.trim().split('\n')).toHaveLength(20);
  });
});

describe.concurrent('Listing › "A limit above 100 or below 1 is outside the allowed range"', () => {
  it('the client sends 1 and 100 as given, and refuses 0, 101 and -5 with exit 2 before sending anything', async (t) => {
    const { server, petctl } = await setupE2e(t, json(200, [PET]));
    for (const limit of ['1', '100']) expect((await petctl(['pets', 'list', '--limit', limit])).code).toBe(0);
    expect(server.requests.map((r) => r.query.limit)).toEqual(['1', '100']);
    for (const limit of ['0', '101', '-5']) {
      const result = await petctl(['pets', 'list', `--limit=${limit}`]);
      expect(result.code, limit).toBe(2);
      expectCleanError(result);
      expect(result.stderr).toContain('--limit must be a whole number from 1 to 100');
    }
    expect(server.requests).toHaveLength(2);
  });

});

describe.concurrent('Listing › "The result is described as paginated"', () => {
  it('the client with --all follows the server\'s rel="next" links to the last page', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(
      json(200, [PET], { link: '</v1/pets?limit=1&after=1>; rel="next"' }),
      json(200, [{ id: 2, name: 'Bella', categoryId: 1 }]),
    );
    const result = await petctl(['pets', 'list', '--all', '--limit', '1', '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').map((line) => JSON.parse(line).id)).toEqual([1, 2]);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/pets?limit=1', '/v1/pets?limit=1&after=1']);
    server.verify();
  });
});
