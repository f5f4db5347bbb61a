import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';

import { call, ENTERPRISE, FREE, rawExchange, sleep, start } from './helpers';

/** Clients that do not play by the rules. */

describe('ambiguous credentials', () => {
  it('refuses two Authorization headers with 400 invalid_request, even when both hold valid keys', async () => {
    const { port } = await start();
    const { response } = await rawExchange(
      port,
      `GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ENTERPRISE}\r\nAuthorization: Bearer ${FREE}\r\nConnection: close\r\n\r\n`,
    );
    expect(response).toMatch(/^HTTP\/1\.1 400 /);
    expect(response).toContain('"code":"invalid_request"');
    expect(response).toMatch(/more than one/);
    expect(response).toMatch(/\r\nX-RateLimit-Limit: 60\r\n/i);
  });

  it('refuses one Authorization header holding two credentials with 400 invalid_request', async () => {
    const { baseUrl } = await start();
    for (const authorization of [`Bearer ${ENTERPRISE}, Bearer ${FREE}`, `Bearer ${FREE},Basic abc`]) {
      const reply = await call(baseUrl, '/pets', { key: null, headers: { authorization } });
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ code: 'invalid_request', status: 400 });
      expect(reply.headers['x-ratelimit-limit']).toBe('60');
    }
  });
});

describe('requests without a valid key', () => {
  it('are counted per client address with the Free plan limits; the flood gets 429, then a ban, like a key', async () => {
    const { baseUrl } = await start();
    const replies = [];
    for (let i = 0; i < 72; i += 1) {
      const reply = await call(baseUrl, '/pets', { key: i % 2 === 0 ? 'guess-1' : null });
      replies.push(reply);
      expect(reply.headers['x-ratelimit-limit']).toBe('60');
      expect(reply.headers['x-ratelimit-reset']).toMatch(/^\d{10}$/);
    }
    expect(replies.map((reply) => reply.status)).toEqual([...Array(60).fill(401), ...Array(12).fill(429)]);
    // 401 answers count down like any other, and the first 429 says when to come back.
    expect(replies.slice(0, 5).map((reply) => reply.headers['x-ratelimit-remaining'])).toEqual(['59', '58', '57', '56', '55']);
    expect(replies[60]).toMatchObject({ body: { code: 'rate_limited' }, headers: { 'x-ratelimit-remaining': '0' } });
    expect(Number(replies[60]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(replies[71]!.body).toMatchObject({ code: 'key_banned', status: 429 });
    expect(Number(replies[71]!.headers['retry-after'])).toBeGreaterThan(500);

    // A valid key from the same address is its own subject: it is served.
    const served = await call(baseUrl, '/pets?limit=1', { key: FREE });
    expect([served.status, served.headers['x-ratelimit-remaining']]).toEqual([200, '59']);
  });
});

describe('slow clients', () => {
  it('drops a socket whose headers trickle in, and keeps serving others meanwhile', async () => {
    const { port, baseUrl } = await start({ headersTimeoutMs: 500, requestTimeoutMs: 1500 });
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    let closed = false;
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    socket.on('close', () => {
      closed = true;
    });
    socket.write('GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const started = Date.now();
    let served = 0;
    for (let i = 0; !closed && i < 200; i += 1) {
      socket.write(`X-Slow-${i}: a\r\n`);
      const reply = await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE });
      if (reply.status === 200) served += 1;
      await sleep(100);
    }
    expect(closed).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(served).toBeGreaterThan(0);
  });

  it('drops a socket whose body never ends, and keeps serving others meanwhile', async () => {
    const { port, baseUrl } = await start({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
    const waiting = rawExchange(
      port,
      `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ENTERPRISE}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
      { waitMs: 10_000 },
    );
    const served = await call(baseUrl, '/pets?limit=1', { key: ENTERPRISE });
    expect(served.status).toBe(200);
    const { closedByServer } = await waiting;
    expect(closedByServer).toBe(true);
    // Nothing half-received was stored.
    const listed = await call(baseUrl, '/pets?limit=100', { key: ENTERPRISE });
    expect(listed.body).toHaveLength(12);
  });

  it('uses 10 s for headers and 30 s for the whole request by default', async () => {
    const { server } = await start();
    expect(server.headersTimeout).toBe(10_000);
    expect(server.requestTimeout).toBe(30_000);
  });
});
