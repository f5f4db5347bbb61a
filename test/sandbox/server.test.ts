import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSandbox, type RunningSandbox } from '../../src/sandbox/server';
import type { Pet } from '../../src/schemas/pet';
import { call, ENTERPRISE, FREE, postJson, rawExchange, sleep, type Reply } from './helpers';

/** Enterprise with a high quota: these tests are about routing and validation, not limits. */
const KEY = ENTERPRISE;

let sandbox: RunningSandbox;
let base: string;
const logLines: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, log: (line) => logLines.push(line) });
  base = sandbox.baseUrl;
});
afterAll(async () => {
  await sandbox.close();
});

function expectError(reply: Reply, status: number, code: string): void {
  expect({ status: reply.status, code: (reply.body as { code?: string } | undefined)?.code }).toEqual({ status, code });
  const body = reply.body as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status']);
  expect(body.status).toBe(status);
  expect(typeof body.message).toBe('string');
  expect((body.message as string).length).toBeGreaterThan(5);
  expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
}

describe('startSandbox', () => {
  it('listens on loopback and reports a /v1 base URL with the chosen port', () => {
    expect(sandbox.port).toBeGreaterThan(0);
    expect(base).toBe(`http://127.0.0.1:${sandbox.port}/v1`);
    expect(sandbox.keys.map((key) => key.key)).toEqual(['sandbox-free', 'sandbox-pro', 'sandbox-business', 'sandbox-enterprise']);
  });

  it('brackets an IPv6 host in the base URL', async (t) => {
    let v6: RunningSandbox;
    try {
      v6 = await startSandbox({ host: '::1', port: 0 });
    } catch {
      return t.skip('no IPv6 loopback on this machine');
    }
    try {
      expect(v6.baseUrl).toBe(`http://[::1]:${v6.port}/v1`);
      expect((await call(v6.baseUrl, '/pets', { key: KEY })).status).toBe(200);
    } finally {
      await v6.close();
    }
  });

  it('close() ends idle keep-alive connections, so it resolves at once', async () => {
    const other = await startSandbox({ port: 0 });
    const reply = await call(other.baseUrl, '/pets', { key: KEY });
    expect(reply.headers.connection).toBe('keep-alive');
    await other.close();
    expect(other.server.listening).toBe(false);
    await expect(call(other.baseUrl, '/pets', { key: KEY })).rejects.toThrow();
  });

  it('rejects when the port is taken', async () => {
    await expect(startSandbox({ port: sandbox.port })).rejects.toThrow(/EADDRINUSE/);
  });
});

describe('GET /v1/pets', () => {
  it('returns the sample animals as a JSON array in ascending id order, with a Date header', async () => {
    const reply = await call(base, '/pets', { key: KEY });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Date.parse(reply.headers.date ?? '')).not.toBeNaN();
    const pets = reply.body as Pet[];
    expect(Array.isArray(pets)).toBe(true);
    expect(pets.length).toBeGreaterThanOrEqual(12);
    expect(pets.length).toBeLessThanOrEqual(20);
    const ids = pets.map((pet) => Number(pet.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(pets[0]).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
    for (const pet of pets) {
      expect(Object.keys(pet).every((field) => ['id', 'name', 'categoryId', 'status'].includes(field))).toBe(true);
      expect(pet).toMatchObject({ id: expect.any(Number), name: expect.any(String), categoryId: expect.any(Number) });
    }
  });

  it.each(['0', '101', '-1', 'abc', '1.5', '', '1e1', '99999'])('refuses limit=%j with invalid_parameter', async (limit) => {
    const reply = await call(base, `/pets?limit=${encodeURIComponent(limit)}`, { key: KEY });
    expectError(reply, 400, 'invalid_parameter');
    expect((reply.body as { message: string }).message).toMatch(/limit must be an integer from 1 to 100/);
  });

  it.each(['adopted', 'AVAILABLE', ''])('refuses status=%j, naming the allowed values', async (status) => {
    const reply = await call(base, `/pets?status=${status}`, { key: KEY });
    expectError(reply, 400, 'invalid_parameter');
    expect((reply.body as { message: string }).message).toMatch(/status must be one of available, pending, sold/);
  });

  it('refuses a parameter given twice', async () => {
    expectError(await call(base, '/pets?limit=1&limit=2', { key: KEY }), 400, 'invalid_parameter');
  });
});

describe('POST /v1/pets', () => {
  it('creates an animal: 201, the Pet with its id, and Location', async () => {
    const reply = await call(base, '/pets', { key: KEY, body: { name: 'Biscuit', categoryId: 2, status: 'pending' } });
    expect(reply.status).toBe(201);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    const pet = reply.body as Pet;
    expect(pet).toEqual({ id: pet.id, name: 'Biscuit', categoryId: 2, status: 'pending' });
    expect(Number(pet.id)).toBeGreaterThan(12);
    expect(reply.headers.location).toBe(`/v1/pets/${pet.id}`);
    expect((await call(base, `/pets/${pet.id}`, { key: KEY })).body).toEqual(pet);
    const listed = (await call(base, '/pets?status=pending&limit=100', { key: KEY })).body as Pet[];
    expect(listed).toContainEqual(pet);
  });

  it('accepts application/json with charset=utf-8 in any case', async () => {
    const reply = await call(base, '/pets', {
      key: KEY,
      body: JSON.stringify({ name: 'Charset', categoryId: 1 }),
      headers: { 'content-type': 'Application/JSON; Charset="UTF-8"' },
    });
    expect(reply.status).toBe(201);
  });

  it.each([
    ['not JSON', '{"name": "Rex",', 'invalid_json'],
    ['not UTF-8', Buffer.from([0x7b, 0x22, 0x6e, 0xff, 0x22, 0x7d]), 'invalid_json'],
    ['an empty body', '', 'invalid_body'],
    ['an array', '[{"name":"Rex","categoryId":1}]', 'invalid_body'],
    ['a string', '"Rex"', 'invalid_body'],
    ['null', 'null', 'invalid_body'],
    ['no name', '{"categoryId":1}', 'missing_field'],
    ['no categoryId', '{"name":"Rex"}', 'missing_field'],
    ['an empty object', '{}', 'missing_field'],
    ['a numeric name', '{"name":5,"categoryId":1}', 'invalid_field'],
    ['a null name', '{"name":null,"categoryId":1}', 'invalid_field'],
    ['an array for a name', '{"name":["Rex"],"categoryId":1}', 'invalid_field'],
    ['an object for a name', '{"name":{"first":"Rex"},"categoryId":1}', 'invalid_field'],
    ['an empty name', '{"name":"","categoryId":1}', 'invalid_field'],
    ['a blank name', '{"name":"   ","categoryId":1}', 'invalid_field'],
    ['a string categoryId', '{"name":"Rex","categoryId":"1"}', 'invalid_field'],
    ['a fractional categoryId', '{"name":"Rex","categoryId":1.5}', 'invalid_field'],
    ['a categoryId above int64', '{"name":"Rex","categoryId":9223372036854775808}', 'invalid_field'],
    ['a categoryId below int64', '{"name":"Rex","categoryId":-9223372036854775809}', 'invalid_field'],
    ['a huge categoryId', '{"name":"Rex","categoryId":1e400}', 'invalid_field'],
    ['an unknown status', '{"name":"Rex","categoryId":1,"status":"adopted"}', 'invalid_field'],
    ['a null status', '{"name":"Rex","categoryId":1,"status":null}', 'invalid_field'],
    ['an empty status', '{"name":"Rex","categoryId":1,"status":""}', 'invalid_field'],
    ['an upper-case status (the enumeration is lower-case; only clients normalise)', '{"name":"Rex","categoryId":1,"status":"SOLD"}', 'invalid_field'],
    ['a client-sent id', '{"id":99,"name":"Rex","categoryId":1}', 'invalid_field'],
    ['an unknown field', '{"name":"Rex","categoryId":1,"colour":"brown"}', 'unknown_field'],
    ['a duplicate key', '{"name":"Rex","name":"Max","categoryId":1}', 'invalid_json'],
  ])('refuses %s with 400 %s', async (_case, body, code) => {
    const reply = await call(base, '/pets', { key: KEY, body, headers: { 'content-type': 'application/json' } });
    expectError(reply, 400, code);
  });

  it('names the problem in the message', async () => {
    const message = async (text: string): Promise<string> => ((await postJson(base, text, KEY)).body as { message: string }).message;
    expect(await message('{"name":"Rex"}')).toMatch(/missing required field categoryId/);
    expect(await message('{}')).toMatch(/name and categoryId/);
    expect(await message('{"id":1,"name":"Rex","categoryId":1}')).toMatch(/id is assigned by the service/);
    expect(await message('{"name":"Rex","categoryId":1,"status":"x"}')).toMatch(/status must be one of available, pending, sold/);
    // Worded as the client words a bad row (one map: schemas/new-pet-rules.ts), the value repeated.
    expect(await message('{"name":"Rex","categoryId":1.5}')).toBe('categoryId must be a whole number, not 1.5');
    expect(await message('{"name":"Rex","categoryId":9223372036854775808}')).toBe('categoryId must be a whole number from -9223372036854775808 to 9223372036854775807, not 9223372036854775808');
    expect(await message('{"name":"  ","categoryId":1}')).toBe('name: must not be empty');
    expect(await message('{"name":"Rex","categoryId":1,"colour":1}')).toMatch(/"colour"/);
  });

  it.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['no Content-Type', {}],
    ['another charset', { 'content-type': 'application/json; charset=iso-8859-1' }],
    ['a +json type', { 'content-type': 'application/merge-patch+json' }],
    ['gzip encoding', { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
  ])('refuses %s with 415 unsupported_media_type', async (_case, headers) => {
    const reply = await call(base, '/pets', { key: KEY, method: 'POST', body: '{"name":"Rex","categoryId":1}', headers });
    expectError(reply, 415, 'unsupported_media_type');
  });

  it('accepts a body of exactly 64 KiB and refuses one byte more with 413', async () => {
    const json = (size: number): string => {
      const prefix = '{"name":"Padded","categoryId":1}';
      return prefix + ' '.repeat(size - prefix.length);
    };
    expect((await postJson(base, json(65_536), KEY)).status).toBe(201);
    const reply = await postJson(base, json(65_537), KEY);
    expectError(reply, 413, 'payload_too_large');
    expect(reply.headers.connection).toBe('close');
  });

  it('refuses a 3 MB body with 413 (the client still reads the answer)', async () => {
    const reply = await postJson(base, `{"name":"${'x'.repeat(3_000_000)}","categoryId":1}`, KEY);
    expectError(reply, 413, 'payload_too_large');
  });

  it('refuses an oversized chunked body with 413', async () => {
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let i = 0; i < 20; i += 1) yield Buffer.alloc(10_000, 0x20);
    }
    const { request } = await import('undici');
    const response = await request(`${base}/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: Readable.from(chunks()),
    });
    expect(response.statusCode).toBe(413);
    expect(JSON.parse(await response.body.text())).toMatchObject({ code: 'payload_too_large', status: 413 });
  });

  it('answers a declared 1 GB body with 413 without waiting for it', async () => {
    const { response: head } = await rawExchange(
      sandbox.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{"na`,
    );
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head).toContain('"code":"payload_too_large"');
  });

  it('refuses a declared oversized body before 100 Continue', async () => {
    const { response: head } = await rawExchange(
      sandbox.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(head).not.toContain('100 Continue');
  });

  it('closes the connection after refusing a client that still awaits 100 Continue', async () => {
    const { response: head } = await rawExchange(
      sandbox.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope\r\nContent-Type: application/json\r\nContent-Length: 30\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(head).toMatch(/^HTTP\/1\.1 401 /);
    expect(head.toLowerCase()).toContain('connection: close');
  });

  it('honours Expect: 100-continue for an acceptable body', async () => {
    const body = '{"name":"Continued","categoryId":1}';
    const { response: head } = await rawExchange(
      sandbox.port,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      { afterContinue: body },
    );
    expect(head).toMatch(/^HTTP\/1\.1 100 Continue/);
    expect(head).toContain('HTTP/1.1 201 Created');
  });
});

describe('GET /v1/pets/{petId}', () => {
  it('returns the animal with the deprecation headers', async () => {
    const reply = await call(base, '/pets/4', { key: KEY });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: 4, name: 'Luna', categoryId: 2, status: 'available' });
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers.deprecation).toBe('@1735689600');
    expect(reply.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(reply.headers.link).toBe('</v1/pets>; rel="successor-version"');
  });

  it('answers 404 pet_not_found for an absent id, still with the deprecation headers', async () => {
    const reply = await call(base, '/pets/424242', { key: KEY });
    expectError(reply, 404, 'pet_not_found');
    expect(reply.headers.deprecation).toBe('@1735689600');
    expect(reply.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(reply.headers.link).toBe('</v1/pets>; rel="successor-version"');
  });

  it('answers 404 for an id at the edges of int64', async () => {
    expectError(await call(base, '/pets/9223372036854775807', { key: KEY }), 404, 'pet_not_found');
    expectError(await call(base, '/pets/-9223372036854775808', { key: KEY }), 404, 'pet_not_found');
  });

  it.each(['abc', '1.5', '9223372036854775808', '007', '%20', '1e3'])('answers 400 invalid_parameter for petId %j', async (petId) => {
    const reply = await call(base, `/pets/${petId}`, { key: KEY });
    expectError(reply, 400, 'invalid_parameter');
    expect((reply.body as { message: string }).message).toMatch(/petId must be an int64/);
    expect(reply.headers.deprecation).toBe('@1735689600');
  });
});

describe('authentication', () => {
  it('answers 401 with a bare Bearer challenge and the rate-limit headers of the client address when no key is sent', async () => {
    const reply = await call(base, '/pets', { key: null });
    expectError(reply, 401, 'unauthorized');
    expect(reply.headers['www-authenticate']).toBe('Bearer realm="petctl-sandbox"');
    expect(reply.headers['x-ratelimit-limit']).toBe('60');
    expect(Number(reply.headers['x-ratelimit-remaining'])).toBeLessThan(60);
    expect(Number(reply.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
  });

  const challenge = 'Bearer realm="petctl-sandbox"';
  it.each([
    ['another scheme', 'Basic c2FuZGJveC1mcmVlOg==', challenge],
    ['another scheme', `Token ${FREE}`, challenge],
    ['a key without one', FREE, challenge],
    ['a malformed bearer header', 'Bearer', `${challenge}, error="invalid_request"`],
    ['a malformed bearer header', 'Bearer a b', `${challenge}, error="invalid_request"`],
    ['a malformed bearer header', 'Bearer ä', `${challenge}, error="invalid_request"`],
  ])('answers 401 to %s (%j) with the challenge %s', async (_case, authorization, expected) => {
    const reply = await call(base, '/pets', { key: null, headers: { authorization } });
    expectError(reply, 401, 'unauthorized');
    expect(reply.headers['www-authenticate']).toBe(expected);
  });

  it('answers 401 invalid_token to an unknown key, on every route', async () => {
    for (const target of ['/pets', '/pets/1', '/nowhere']) {
      const reply = await call(base, target, { key: 'sandbox-gold' });
      expectError(reply, 401, 'unauthorized');
      expect(reply.headers['www-authenticate']).toBe('Bearer realm="petctl-sandbox", error="invalid_token"');
    }
    const post = await call(base, '/pets', { key: 'SANDBOX-FREE', body: { name: 'Rex', categoryId: 1 } });
    expectError(post, 401, 'unauthorized');
  });

  it('accepts the scheme name in any case', async () => {
    const reply = await call(base, '/pets?limit=1', { key: null, headers: { authorization: `bearer ${KEY}` } });
    expect(reply.status).toBe(200);
  });
});

describe('routing', () => {
  it.each(['/v1', '/v1/', '/v1/pet', '/v1/pets/', '/v1/pets/1/extra', '/v2/pets', '/pets', '/', '/v1/store/orders'])(
    'answers 404 not_found for %s',
    async (target) => {
      const reply = await call(base.replace(/\/v1$/, ''), target, { key: KEY });
      expectError(reply, 404, 'not_found');
      expect((reply.body as { message: string }).message).toBe(
        `no such path: ${target}; the sandbox serves /v1/pets and /v1/pets/{petId}, the operations the specification shows`,
      );
    },
  );

  it.each([
    ['DELETE', '/pets', 'GET, POST'],
    ['PUT', '/pets', 'GET, POST'],
    ['PATCH', '/pets/1', 'GET'],
    ['POST', '/pets/1', 'GET'],
    ['OPTIONS', '/pets', 'GET, POST'],
  ])('answers %s %s with 405 and Allow: %s', async (method, target, allow) => {
    const reply = await call(base, target, { key: KEY, method });
    expectError(reply, 405, 'method_not_allowed');
    expect(reply.headers.allow).toBe(allow);
  });
});

describe('the request log', () => {
  it('has one line per request with method, path, status, plan and duration, never the key', async () => {
    const before = logLines.length;
    await call(base, '/pets?limit=2', { key: FREE });
    await call(base, '/pets/999999', { key: 'sandbox-pro' });
    await call(base, '/pets', { key: 'bad-key' });
    await sleep(50); // the line is written when the server closes the response, just after the client has it
    const lines = logLines.slice(before);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^GET \/v1\/pets\?limit=2 200 free \d+ms$/);
    expect(lines[1]).toMatch(/^GET \/v1\/pets\/999999 404 pro \d+ms$/);
    expect(lines[2]).toMatch(/^GET \/v1\/pets 401 - \d+ms$/);
    expect(lines.join('\n')).not.toContain('sandbox-');
  });
});
