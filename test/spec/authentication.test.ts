import { describe, expect, it } from 'vitest';
import { ENTERPRISE, PET, call, expectCleanError, expectPetctlHeaders, json, sandboxFor, setupE2e } from './sides';

describe.concurrent('Authentication › "The client sends its API key as a bearer token in the Authorization header, in the form Authorization: Bearer <API_KEY>"', () => {
  it('the client sends exactly "Bearer <key>" on list, add and get', async (t) => {
    const { server, petctl, key } = await setupE2e(t);
    const refusal = { code: 'unauthorized', message: 'the key is not valid', status: 401 };
    server.reply(json(200, [PET]), json(201, PET), json(200, PET), json(401, refusal));
    for (const args of [['pets', 'list'], ['pets', 'add', '--name', 'Rex', '--category-id', '1'], ['pets', 'get', '1']]) {
      expect((await petctl(args)).code, args.join(' ')).toBe(0);
    }
    // A 401: exit 4, the server's message and code, and a hint about the key it used.
    const refused = await petctl(['pets', 'list']);
    expect(refused.code).toBe(4);
    expectCleanError(refused);
    expect(refused.stderr).toMatch(/^error: the key is not valid \(unauthorized, HTTP 401\)$/m);
    expect(refused.stderr).toMatch(/^hint: PETCTL_API_KEY was rejected/m);
    const sent = server.requests.map((r) => `${r.method} ${r.path}`);
    expect(sent).toEqual(['GET /v1/pets', 'POST /v1/pets', 'GET /v1/pets/1', 'GET /v1/pets']);
    for (const request of server.requests) expectPetctlHeaders(request, key);
    server.verify();
  });
});

describe.concurrent('Authentication › "The scheme applies to every operation of the interface"', () => {
  it('the sandbox refuses listPets, createPet and getPet without a key, and stores nothing (nor from a refused body)', async (t) => {
    const { baseUrl } = await sandboxFor({}, t);
    const before = (await call(baseUrl, '/pets?limit=100', { key: ENTERPRISE })).body;
    expect((await call(baseUrl, '/pets', { key: null })).status).toBe(401);
    expect((await call(baseUrl, '/pets', { key: null, body: { name: 'Rex', categoryId: 1 } })).status).toBe(401);
    expect((await call(baseUrl, '/pets/1', { key: null })).status).toBe(401);
    // Nor does a body the sandbox refuses.
    expect((await call(baseUrl, '/pets', { key: ENTERPRISE, body: { name: 'Rex', categoryId: 1.5 } })).status).toBe(400);
    expect((await call(baseUrl, '/pets?limit=100', { key: ENTERPRISE })).body).toEqual(before);
  });
});
