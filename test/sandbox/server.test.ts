import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSandbox, type RunningSandbox } from '../../src/sandbox/server';
import type { Pet } from '../../src/schemas/pet';
import { BUSINESS, call, ENTERPRISE, FREE, postJson, PRO, start, type Reply } from './helpers';

/** Enterprise with a high quota: these tests are about routing and validation, not limits. */
const KEY = ENTERPRISE;
const JSON_TYPE = 'application/json; charset=utf-8';

let sandbox: RunningSandbox;
let base: string;
const logLines: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, log: (line) => logLines.push(line) });
  base = sandbox.baseUrl;
});
afterAll(() => sandbox.close());

const get = (target: string) => call(base, target, { key: KEY });

/** The Error body: exactly code, message and status, as JSON. */
function expectError(reply: Reply, status: number, code: string, message: RegExp = /.{6}/): void {
  expect(reply).toMatchObject({
    status,
    headers: { 'content-type': JSON_TYPE },
    body: { status, code, message: expect.stringMatching(message) },
  });
  expect(Object.keys(reply.body as object).sort()).toEqual(['code', 'message', 'status']);
}

describe('startSandbox', () => {
  it('listens on loopback and reports a /v1 base URL with the chosen port; 10 s for headers, 30 s a request', () => {
    expect(base).toBe(`http://127.0.0.1:${sandbox.port}/v1`);
    expect(sandbox.keys.map((key) => key.key)).toEqual([FREE, PRO, BUSINESS, ENTERPRISE]);
    expect([sandbox.server.headersTimeout, sandbox.server.requestTimeout]).toEqual([10_000, 30_000]);
  });

  it('brackets an IPv6 host in the base URL', async (t) => {
    const v6 = await start({ host: '::1' }).catch(() => undefined);
    if (v6 === undefined) return t.skip('no IPv6 loopback on this machine');
    expect(v6.baseUrl).toBe(`http://[::1]:${v6.port}/v1`);
    expect((await call(v6.baseUrl, '/pets', { key: KEY })).status).toBe(200);
  });

  it('close() ends idle keep-alive connections, so it resolves at once', async () => {
    const other = await startSandbox({ port: 0 });
    expect((await call(other.baseUrl, '/pets', { key: KEY })).headers.connection).toBe('keep-alive');
    await other.close();
    expect(other.server.listening).toBe(false);
    await expect(call(other.baseUrl, '/pets', { key: KEY })).rejects.toThrow();
  });
});

describe('GET /v1/pets', () => {
  // Which animals, in which order: paging.test.ts's pages.
  it('returns the sample animals as a JSON array, with a Date header', async () => {
    const reply = await get('/pets');
    expect(reply).toMatchObject({ status: 200, headers: { 'content-type': JSON_TYPE } });
    expect(Date.parse(reply.headers.date ?? '')).not.toBeNaN();
    const pets = reply.body as Pet[];
    expect(pets[0]).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
    // The Pet's fields and no others (their values: store.test.ts).
    expect(new Set(pets.flatMap((pet) => Object.keys(pet)))).toEqual(new Set(['id', 'name', 'categoryId', 'status']));
  });

  const values = (name: string, list: string[], message: RegExp) =>
    list.map((value) => [`${name}=${encodeURIComponent(value)}`, message]);
  it.each([
    ...values('limit', ['0', '101', '-1', 'abc', '1.5', '', '1e1', '99999'], /limit must be an integer from 1 to 100/),
    ...values('status', ['adopted', 'AVAILABLE', ''], /status must be one of available, pending, sold/),
    ...values('after', ['abc', '1.5', '007', '', '9223372036854775808', '1e3'], /after must be an int64/),
    ['limit=1&limit=2', /./],
    ['after=1&after=2', /./],
  ] as Array<[string, RegExp]>)('refuses ?%s with 400 invalid_parameter', async (query, message) => {
    expectError(await get(`/pets?${query}`), 400, 'invalid_parameter', message);
  });
});

describe('POST /v1/pets', () => {
  it('creates an animal (JSON, charset=utf-8 in any case): 201, the Pet with its id, and Location', async () => {
    const headers = { 'content-type': 'Application/JSON; Charset="UTF-8"' };
    const body = { name: 'Biscuit', categoryId: 2, status: 'pending' };
    const reply = await call(base, '/pets', { key: KEY, body, headers });
    const pet = reply.body as Pet;
    expect(reply).toMatchObject({ status: 201, headers: { 'content-type': JSON_TYPE, location: `/v1/pets/${pet.id}` } });
    expect(pet).toEqual({ id: pet.id, name: 'Biscuit', categoryId: 2, status: 'pending' });
    expect(Number(pet.id)).toBeGreaterThan(12);
    expect((await get(`/pets/${pet.id}`)).body).toEqual(pet);
    expect((await get('/pets?status=pending&limit=100')).body).toContainEqual(pet);
  });

  // The message words the problem as the client words a bad row (schemas/new-pet-rules.ts), the value repeated.
  it.each<[string, string | Buffer, string, RegExp?]>([
    ['not JSON', '{"name": "Rex",', 'invalid_json'],
    ['not UTF-8', Buffer.from([0x7b, 0x22, 0x6e, 0xff, 0x22, 0x7d]), 'invalid_json'],
    ['an empty body', '', 'invalid_body'],
    ['an array', '[{"name":"Rex","categoryId":1}]', 'invalid_body'],
    ['null', 'null', 'invalid_body'],
    ['no name', '{"categoryId":1}', 'missing_field'],
    ['no categoryId', '{"name":"Rex"}', 'missing_field', /missing required field categoryId/],
    ['an empty object', '{}', 'missing_field', /name and categoryId/],
    ['a numeric name', '{"name":5,"categoryId":1}', 'invalid_field'],
    ['an array for a name', '{"name":["Rex"],"categoryId":1}', 'invalid_field'],
    ['an empty name', '{"name":"","categoryId":1}', 'invalid_field'],
    ['a blank name', '{"name":"   ","categoryId":1}', 'invalid_field', /^name: must not be empty$/],
    ['a string categoryId', '{"name":"Rex","categoryId":"1"}', 'invalid_field'],
    [
      'a fractional categoryId',
      '{"name":"Rex","categoryId":1.5}',
      'invalid_field',
      /^categoryId must be a whole number, not 1\.5$/,
    ],
    [
      'a categoryId above int64',
      '{"name":"Rex","categoryId":9223372036854775808}',
      'invalid_field',
      /^categoryId must be a whole number from -9223372036854775808 to 9223372036854775807, not 9223372036854775808$/,
    ],
    ['a huge categoryId', '{"name":"Rex","categoryId":1e400}', 'invalid_field'],
    [
      'an unknown status',
      '{"name":"Rex","categoryId":1,"status":"adopted"}',
      'invalid_field',
      /^status must be one of available, pending, sold, not "adopted"$/,
    ],
    ['a null status', '{"name":"Rex","categoryId":1,"status":null}', 'invalid_field'],
    ['an empty status', '{"name":"Rex","categoryId":1,"status":""}', 'invalid_field'],
    ['an upper-case status (the enumeration is lower-case; only clients normalise)', '{"name":"Rex","categoryId":1,"status":"SOLD"}', 'invalid_field'],
    ['a client-sent id', '{"id":99,"name":"Rex","categoryId":1}', 'invalid_field', /id is assigned by the service/],
    ['an unknown field', '{"name":"Rex","categoryId":1,"colour":"brown"}', 'unknown_field', /"colour"/],
    ['a duplicate key', '{"name":"Rex","name":"Max","categoryId":1}', 'invalid_json'],
  ])('refuses %s with 400 %s, naming the problem', async (_case, body, code, message) => {
    const reply = await call(base, '/pets', { key: KEY, body, headers: { 'content-type': 'application/json' } });
    expectError(reply, 400, code, message);
  });

  it.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['no Content-Type', {}],
    ['another charset', { 'content-type': 'application/json; charset=iso-8859-1' }],
    ['a +json type', { 'content-type': 'application/merge-patch+json' }],
    ['gzip encoding', { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
  ])('refuses %s with 415 unsupported_media_type', async (_case, headers) => {
    const body = '{"name":"Rex","categoryId":1}';
    expectError(await call(base, '/pets', { key: KEY, method: 'POST', body, headers }), 415, 'unsupported_media_type');
  });

  it('accepts a body of exactly 64 KiB and refuses one byte more with 413, closing the connection', async () => {
    const padded = (size: number) => '{"name":"Padded","categoryId":1}'.padEnd(size);
    expect((await postJson(base, padded(65_536), KEY)).status).toBe(201);
    const reply = await postJson(base, padded(65_537), KEY);
    expectError(reply, 413, 'payload_too_large');
    expect(reply.headers.connection).toBe('close');
  });

  it('refuses a 3 MB body and an oversized chunked one with 413 (the client still reads the answer)', async () => {
    const big = `{"name":"${'x'.repeat(3_000_000)}","categoryId":1}`;
    expectError(await postJson(base, big, KEY), 413, 'payload_too_large');
    const body = Readable.from(Array.from({ length: 20 }, () => Buffer.alloc(10_000, 0x20)));
    const headers = { 'content-type': 'application/json' };
    expectError(await call(base, '/pets', { key: KEY, body, headers }), 413, 'payload_too_large');
  });
});

describe('GET /v1/pets/{petId}', () => {
  const DEPRECATED = {
    deprecation: '@1735689600',
    sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
    link: '</v1/pets>; rel="successor-version"',
  };

  it('returns the animal with the deprecation headers', async () => {
    const reply = await get('/pets/4');
    expect(reply).toMatchObject({ status: 200, headers: { ...DEPRECATED, 'content-type': JSON_TYPE } });
    expect(reply.body).toEqual({ id: 4, name: 'Luna', categoryId: 2, status: 'available' });
  });

  const INT64 = /petId must be an int64/;
  it.each([
    // An absent id, and ids at the edges of int64.
    ...['424242', '9223372036854775807', '-9223372036854775808'].map((id) => [id, 404, 'pet_not_found', /./]),
    ...['abc', '1.5', '9223372036854775808', '007', '%20', '1e3'].map((id) => [id, 400, 'invalid_parameter', INT64]),
  ] as Array<[string, number, string, RegExp]>)('answers petId %s with %i %s and the deprecation headers', async (...row) => {
    const [id, status, code, message] = row;
    const reply = await get(`/pets/${id}`);
    expectError(reply, status, code, message);
    expect(reply.headers).toMatchObject(DEPRECATED);
  });
});

describe('authentication', () => {
  const challenge = 'Bearer realm="petctl-sandbox"';

  it.each([
    ['no key', undefined, challenge],
    ['another scheme', 'Basic c2FuZGJveC1mcmVlOg==', challenge],
    ['a key without one', FREE, challenge],
    ['a malformed bearer header', 'Bearer', `${challenge}, error="invalid_request"`],
    ['a malformed bearer header', 'Bearer a b', `${challenge}, error="invalid_request"`],
    ['a malformed bearer header', 'Bearer ä', `${challenge}, error="invalid_request"`],
  ])('answers 401 to %s (%j) with the challenge %s and the rate-limit headers of the address', async (...row) => {
    const [, authorization, expected] = row;
    const reply = await call(base, '/pets', { key: null, headers: authorization === undefined ? {} : { authorization } });
    expectError(reply, 401, 'unauthorized');
    expect(reply.headers).toMatchObject({ 'www-authenticate': expected, 'x-ratelimit-limit': '60' });
  });

  it('answers 401 invalid_token to an unknown key, on every route', async () => {
    const replies = ['/pets', '/pets/1', '/nowhere'].map((target) => call(base, target, { key: 'sandbox-gold' }));
    replies.push(call(base, '/pets', { key: 'SANDBOX-FREE', body: { name: 'Rex', categoryId: 1 } }));
    for (const reply of await Promise.all(replies)) {
      expectError(reply, 401, 'unauthorized');
      expect(reply.headers['www-authenticate']).toBe(`${challenge}, error="invalid_token"`);
    }
  });

  it('accepts the scheme name in any case', async () => {
    const headers = { authorization: `bearer ${KEY}` };
    expect((await call(base, '/pets?limit=1', { key: null, headers })).status).toBe(200);
  });
});

describe('routing', () => {
  const paths = ['/v1', '/v1/', '/v1/pet', '/v1/pets/', '/v1/pets/1/extra', '/v2/pets', '/pets', '/', '/v1/store/orders'];
  it.each(paths)('answers 404 not_found for %s', async (target) => {
    const reply = await call(base.replace(/\/v1$/, ''), target, { key: KEY });
    expectError(reply, 404, 'not_found');
    const served = 'the sandbox serves /v1/pets and /v1/pets/{petId}, the operations the specification shows';
    expect((reply.body as { message: string }).message).toBe(`no such path: ${target}; ${served}`);
  });

  it.each([
    ['DELETE', '/pets', 'GET, POST'],
    ['PUT', '/pets', 'GET, POST'],
    ['POST', '/pets/1', 'GET'],
    ['OPTIONS', '/pets', 'GET, POST'],
  ])('answers %s %s with 405 and Allow: %s', async (method, target, allow) => {
    const reply = await call(base, target, { key: KEY, method });
    expectError(reply, 405, 'method_not_allowed');
    expect(reply.headers.allow).toBe(allow);
  });
});

it('the request log: one line per request with method, path, status, plan and duration, never the key', async () => {
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
