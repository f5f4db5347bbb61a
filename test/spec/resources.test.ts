import { describe, expect, it } from 'vitest';
import { ENTERPRISE, PET, call, json, postJson, sandboxFor, setupE2e } from './sides';

const BEYOND_2_53 = '9007199254740993';
const STATUSES = ['available', 'pending', 'sold'];

describe.concurrent('Resources › "Allowed values: available, pending, sold"', () => {
  it('the client sends each status (refusing any other, exit 2), a name as a JSON string, and prints every field of a Pet', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(...STATUSES.map(() => json(200, [PET])), json(200, [PET]), json(201, PET));
    for (const status of [...STATUSES, 'Sold']) expect((await petctl(['pets', 'list', '--status', status])).code).toBe(0);
    expect(server.requests.map((r) => r.query.status)).toEqual([...STATUSES, 'sold']);
    expect((await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '1', '--status', ''])).code).toBe(2);
    expect(server.requests).toHaveLength(4);
    // Digits are a name too.
    expect((await petctl(['pets', 'add', '--name', '123', '--category-id', '1'])).code).toBe(0);
    expect(JSON.parse(server.requests[4]!.body)).toEqual({ name: '123', categoryId: 1 });
    // A field a newer server adds is kept in JSON; an animal without a status shows none, and its JSON has none.
    server.reply(json(200, { ...PET, microchip: 'ABC' }), json(200, [{ id: 1, name: 'Rex', categoryId: 1 }]));
    expect(JSON.parse((await petctl(['pets', 'get', '1', '-o', 'json'])).stdout)).toEqual({ ...PET, microchip: 'ABC' });
    expect((await petctl(['pets', 'list'])).stdout).toBe('1\tRex\t1\t-\n');
    server.reply(json(200, [{ id: 1, name: 'Rex', categoryId: 1 }]));
    const listed = await petctl(['pets', 'list', '-o', 'json']);
    expect(JSON.parse(listed.stdout)).toEqual([{ id: 1, name: 'Rex', categoryId: 1 }]);
    // No command changes an animal.
    for (const verb of ['update', 'set-status', 'delete']) {
      const result = await petctl(['pets', verb, '1']);
      expect(result.code, verb).toBe(2);
      expect(result.stderr).toContain(`unknown command '${verb}'`);
    }
    expect(server.requests).toHaveLength(8);
    server.verify();
  });

  it('the sandbox takes each of the three in a body and a filter, and invents none: an animal added without is in no filter', async (t) => {
    const { baseUrl } = await sandboxFor({}, t);
    const added = await call(baseUrl, '/pets', { key: ENTERPRISE, body: { name: 'Nameless', categoryId: 1 } });
    const nameless = added.body as typeof PET;
    expect(nameless).not.toHaveProperty('status');
    expect((await call(baseUrl, `/pets/${nameless.id}`, { key: ENTERPRISE })).body).not.toHaveProperty('status');
    for (const status of STATUSES) {
      expect((await call(baseUrl, '/pets', { key: ENTERPRISE, body: { name: 'Rex', categoryId: 1, status } })).status).toBe(201);
      const listed = await call(baseUrl, `/pets?limit=100&status=${status}`, { key: ENTERPRISE });
      expect(listed.status).toBe(200);
      expect((listed.body as Array<typeof PET>).map((pet) => pet.id)).not.toContain(nameless.id);
    }
  });
});

describe.concurrent('Resources › "categoryId | integer | int64 | yes | Identifier of the category the animal belongs to"', () => {
  it('the sandbox keeps an int64 categoryId exact, refuses one outside int64 or not an integer, and changes no animal', async (t) => {
    const { baseUrl } = await sandboxFor({}, t);
    const created = await postJson(baseUrl, `{"name":"Rex","categoryId":${BEYOND_2_53}}`, ENTERPRISE);
    expect(created.text).toContain(`"categoryId":${BEYOND_2_53}`);
    const id = /"id":(\d+)/.exec(created.text)![1];
    for (const categoryId of ['9223372036854775808', '-9223372036854775809', '1.5', '"1"', 'null']) {
      expect((await postJson(baseUrl, `{"name":"Rex","categoryId":${categoryId}}`, ENTERPRISE)).status, categoryId).toBe(400);
    }
    // PUT, PATCH and DELETE get 405, and the animal stays as it is.
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const body = { name: 'Bo', categoryId: 1, status: 'sold' };
      const reply = await call(baseUrl, `/pets/${id}`, { key: ENTERPRISE, method, body });
      expect(reply.status, method).toBe(405);
      expect(reply.headers.allow).toBe('GET');
    }
    expect((await call(baseUrl, `/pets/${id}`, { key: ENTERPRISE })).text).toBe(created.text);
  });
});
