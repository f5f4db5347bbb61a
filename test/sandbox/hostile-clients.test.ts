import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';

import { call, ENTERPRISE, FREE, rawExchange, start } from './helpers';

/** Clients that do not play by the rules. */

it('ambiguous credentials (two Authorization headers, or two credentials in one): 400 invalid_request', async () => {
  const { port, baseUrl } = await start();
  const { response } = await rawExchange(
    port,
    `GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ENTERPRISE}\r\nAuthorization: Bearer ${FREE}\r\nConnection: close\r\n\r\n`,
  );
  expect(response).toMatch(/^HTTP\/1\.1 400 [^]*\r\nX-RateLimit-Limit: 60\r\n[^]*"code":"invalid_request"/i);
  expect(response).toMatch(/more than one/);
  for (const authorization of [`Bearer ${ENTERPRISE}, Bearer ${FREE}`, `Bearer ${FREE},Basic abc`]) {
    const refusal = { status: 400, body: { code: 'invalid_request', status: 400 }, headers: { 'x-ratelimit-limit': '60' } };
    expect(await call(baseUrl, '/pets', { key: null, headers: { authorization } })).toMatchObject(refusal);
  }
});

it('requests without a valid key count per client address at the Free limits: 429, then a ban, like a key', async () => {
  const { baseUrl } = await start();
  const replies = [];
  for (let i = 0; i < 72; i += 1) replies.push(await call(baseUrl, '/pets', { key: i % 2 === 0 ? 'guess-1' : null }));
  // 401 answers count down like any other, and the first 429 says when to come back.
  expect(replies.map((reply) => [reply.status, reply.headers['x-ratelimit-limit']])).toEqual([
    ...Array(60).fill([401, '60']),
    ...Array(12).fill([429, '60']),
  ]);
  expect(replies.slice(0, 3).map((reply) => reply.headers['x-ratelimit-remaining'])).toEqual(['59', '58', '57']);
  expect(replies[60]).toMatchObject({ body: { code: 'rate_limited' }, headers: { 'x-ratelimit-remaining': '0' } });
  expect(Number(replies[60]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(replies[71]!.body).toMatchObject({ code: 'key_banned', status: 429 });
  expect(Number(replies[71]!.headers['retry-after'])).toBeGreaterThan(500);
  // A valid key from the same address is its own subject: it is served.
  const served = await call(baseUrl, '/pets?limit=1', { key: FREE });
  expect([served.status, served.headers['x-ratelimit-remaining']]).toEqual([200, '59']);
});

it('slow clients: drops a socket whose headers trickle in or whose body never ends, and serves others meanwhile', async () => {
  const { port, baseUrl } = await start({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
  const waiting = rawExchange(
    port,
    `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ENTERPRISE}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
    { waitMs: 10_000 },
  );
  const socket = connect(port, '127.0.0.1').on('error', () => {});
  let closed = false;
  socket.on('close', () => void (closed = true));
  socket.write('GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  const started = Date.now();
  let served = 0;
  for (let i = 0; !closed && i < 200; i += 1) {
    socket.write(`X-Slow-${i}: a\r\n`);
    if ((await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE })).status === 200) served += 1;
    await sleep(100);
  }
  expect(closed).toBe(true);
  // Its 408 and Error body: test/spec/errors.test.ts.
  expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  expect(served).toBeGreaterThan(0);
  expect((await waiting).closedByServer).toBe(true);
  // Nothing half-received was stored.
  expect((await call(baseUrl, '/pets?limit=100', { key: ENTERPRISE })).body).toHaveLength(12);
});

/** A POST written by hand: its headers after Host and Content-Type, then `body`, to a sandbox of its own. */
const rawPost = async (headers: string[], body = '', afterContinue?: string) => {
  const head = ['POST /v1/pets HTTP/1.1', 'Host: x', 'Content-Type: application/json', ...headers];
  return rawExchange((await start()).port, `${head.join('\r\n')}\r\n\r\n${body}`, { afterContinue });
};
const AUTH = `Authorization: Bearer ${ENTERPRISE}`;

it('answers a declared 1 GB body with 413 without waiting for it', async () => {
  const { response } = await rawPost([AUTH, 'Content-Length: 1000000000'], '{"na');
  expect(response).toMatch(/^HTTP\/1\.1 413 [^]*"code":"payload_too_large"/);
});

it('refuses a declared oversized body before 100 Continue', async () => {
  const { response } = await rawPost([AUTH, 'Content-Length: 100000', 'Expect: 100-continue']);
  expect(response).toMatch(/^HTTP\/1\.1 413 /);
  expect(response).not.toContain('100 Continue');
});

it('closes the connection after refusing a client that still awaits 100 Continue', async () => {
  const { response } = await rawPost(['Authorization: Bearer nope', 'Content-Length: 30', 'Expect: 100-continue']);
  expect(response).toMatch(/^HTTP\/1\.1 401 [^]*\r\nconnection: close\r\n/i);
});

it('honours Expect: 100-continue for an acceptable body', async () => {
  const body = '{"name":"Continued","categoryId":1}';
  const headers = [AUTH, `Content-Length: ${body.length}`, 'Expect: 100-continue', 'Connection: close'];
  const { response } = await rawPost(headers, '', body);
  expect(response).toMatch(/^HTTP\/1\.1 100 Continue[^]*HTTP\/1\.1 201 Created/);
});
