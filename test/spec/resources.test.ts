import { describe, expect, it } from 'vitest';
import { ENTERPRISE, PET, call, json, postJson, sandboxFor, setupE2e } from './sides';

/** Resources and their fields (PetStatus, NewPet, Pet, Error, Category), and States and transitions. */

const BEYOND_2_53 = '9007199254740993';
const STATUSES = ['available', 'pending', 'sold'];

describe.concurrent('Resources › "Allowed values: available, pending, sold"', () => {
  it('the client sends each status (refusing any other, exit 2), a name as a JSON string, and prints every field of a Pet', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(...STATUSES.map(() => json(200, [PET])), json(200, [PET]), json(201, PET));
    for (const status of [...STATUSES, 'Sold']) expect((await petctl(['pets', 'list', '--status', status])).code).toBe(0);
    expect(server.requests.map((r) => r.query.status)).toEqual([...STATUSES, 'sold']);
    for (const status of ['adopted', '']) {
      expect((await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '1', '--status', status])).code).toBe(2);
    }
    expect(server.requests).toHaveLength(4);
    // Digits are a name too.
    expect((await petctl(['pets', 'add', '--name', '123', '--category-id', '1'])).code).toBe(0);
    expect(JSON.parse(server.requests[4]!.body)).toEqual({ name: '123', categoryId: 1 });
    // A field a newer server adds is kept in JSON; an animal without a status shows none, and its JSON has none.
    server.reply(json(200, { ...PET, microchip: 'ABC' }), json(200, [{ id: 1, name: 'Rex', categoryId: 1 }]));
    expect(JSON.parse((await petctl(['pets', 'get', '1', '-o', 'json'])).stdout)).toEqual({ ...PET, microchip: 'ABC' });
    expect((await petctl(['pets', 'list'])).stdout).toBe('1\tRex\t1\t-\n');
    server.reply(json(200, [{ id: 1, name: 'Rex', categoryId: 1 }]));
    expect(JSON.parse((await petctl(['pets', 'list', '-o', 'json'])).stdout)).toEqual([{ id: 1, name: 'Rex', categoryId: 1 }]);
    // No command changes an animal.
    for (const verb of ['update', 'set-status', 'delete']) {
      const result = await petctl(['pets', verb, '1']);
      expect(result.code, verb).toBe(2);
      expect(result.stderr).toContain(`unknown command '${verb}'`);
    }
    expect(server.requests).toHaveLength(8);
    server.verify();
  });

  it('the sandbox takes each of the three in a body and a filter (any other: test/sandbox/server.test.ts)', async (t) => {
    const { baseUrl } = await sandboxFor({}, t);
    for (const status of STATUSES) {
      expect((await call(baseUrl, '/pets', { key: ENTERPRISE, body: { name: 'Rex', categoryId: 1, status } })).status).toBe(201);
      expect((await call(baseUrl, `/pets?status=${status}`, { key: ENTERPRISE })).status).toBe(200);
    }
  });
});

describe.concurrent('Resources › "categoryId | integer | int64 | yes | Identifier of the category the animal belongs to"', () => {
  it('the sandbox keeps an int64 categoryId exact, and refuses one outside int64 or not an integer', async (t) => {
    const { baseUrl } = await sandboxFor({}, t);
    const created = await postJson(baseUrl, `{"name":"Rex","categoryId":${BEYOND_2_53}}`, ENTERPRISE);
    expect(created.text).toContain(`"categoryId":${BEYOND_2_53}`);
    const id = /"id":(\d+)/.exec(created.text)![1];
    expect((await call(baseUrl, `/pets/${id}`, { key: ENTERPRISE })).text).toContain(`"categoryId":${BEYOND_2_53}`);
    for (const categoryId of ['9223372036854775808', '-9223372036854775809', '1.5', '"1"', 'null']) {
      expect((await postJson(baseUrl, `{"name":"Rex","categoryId":${categoryId}}`, ENTERPRISE)).status, categoryId).toBe(400);
    }
  });
});

describe.concurrent('Resources › "No default is stated for status"', () => {
  it('the sandbox invents none: an animal added without a status has none, and no status filter lists it', async (t) => {
    const { baseUrl } = await sandboxFor({}, t);
    const created = (await call(baseUrl, '/pets', { key: ENTERPRISE, body: { name: 'Nameless', categoryId: 1 } })).body as typeof PET;
    expect(created).not.toHaveProperty('status');
    expect((await call(baseUrl, `/pets/${created.id}`, { key: ENTERPRISE })).body).not.toHaveProperty('status');
    for (const status of STATUSES) {
      const listed = (await call(baseUrl, `/pets?limit=100&status=${status}`, { key: ENTERPRISE })).body as Array<typeof PET>;
      expect(listed.map((pet) => pet.id)).not.toContain(created.id);
    }
  });

});

describe.concurrent('States › "No operation that changes the status of an existing animal is given, and the rules for moving between the three values are not given"', () => {
  it('the sandbox offers no way to change an animal: PUT, PATCH and DELETE get 405 and the animal stays as it is', async (t) => {
    const { baseUrl } = await sandboxFor({}, t);
    const before = (await call(baseUrl, '/pets/1', { key: ENTERPRISE })).body;
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const reply = await call(baseUrl, '/pets/1', { key: ENTERPRISE, method, body: { name: 'Rex', categoryId: 1, status: 'sold' } });
      expect(reply.status, method).toBe(405);
      expect(reply.headers.allow).toBe('GET');
    }
    expect((await call(baseUrl, '/pets/1', { key: ENTERPRISE })).body).toEqual(before);
  });

});
