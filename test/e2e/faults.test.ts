import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type CliResult, expectCleanError, jsonError, loopbackPortIsFree, newApiKey, runCli, setupE2e, tempDir } from '../helpers/cli';
import { json } from '../helpers/scripted-server';

/**
 * The fault side of the HTTP core, end to end: the built petctl against a
 * scripted server on loopback that answers with HTML 502s, drops connections,
 * never answers, or sends bodies that are not what the specification says.
 */

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const PET_LINE = '1\tRex\t1\tavailable\n';
const HTML_502 = '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>';

const ADD = ['pets', 'add', '--name', 'Rex', '--category-id', '1'];

describe.concurrent('gateway errors and dropped connections', () => {
  it('GET: an HTML 502 is retried, then the 200 wins (exit 0)', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ status: 502, headers: { 'content-type': 'text/html' }, body: HTML_502 }, json(200, [PET]));

    const result = await petctl(['pets', 'list']);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(PET_LINE);
    expect(server.requests).toHaveLength(2);
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/pets', '/v1/pets']);
    server.verify();
  });

  it('GET: a persistent 503 with --retries 1 ends with exit 7 after two requests, naming the status', async (t) => {
    const { server, petctl } = await setupE2e(t, { status: 503, headers: { 'content-type': 'text/html' }, body: '<html>Service Unavailable</html>' });

    const result = await petctl(['--retries', '1', 'pets', 'list']);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(server.requests).toHaveLength(2);
    expect(result.stderr).toMatch(/^error: .*HTTP 503/m);

    const asJson = await petctl(['--retries', '0', '-o', 'json', 'pets', 'list']);
    expect(asJson.code).toBe(7);
    expect(jsonError(asJson)).toMatchObject({ status: 503 });
  });

  it('POST: a dropped connection ends with exit 7 after one request, warning the animal may exist', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ destroy: true });

    const result = await petctl(ADD);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: POST http:\/\/127\.0\.0\.1:\d+\/v1\/pets failed: .* \(network_error\)$/m);
    expect(result.stderr).toMatch(/^hint: the animal may or may not have been created; check with petctl pets list before adding it again$/m);
  });

  it('GET: a dropped connection is retried, then the 200 wins (exit 0)', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ destroy: true }, json(200, [PET]));

    const result = await petctl(['pets', 'list']);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(PET_LINE);
    expect(server.requests).toHaveLength(2);
    // Every retry is named with its reason, however short its wait.
    expect(result.stderr).toMatch(/^petctl: retry 1\/4 in \d+(\.\d)?s: (connection reset by the server|the connection closed before the answer was complete)$/m);
  });

  it('nothing listening on a loopback port: not retried, whatever --retries says (waiting starts no server)', async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const key = newApiKey();
    const result = await runCli(['--base-url', `http://127.0.0.1:${port}/v1`, '--retries', '4', 'pets', 'list'], {
      env: { PETCTL_CONFIG_DIR: tempDir(), PETCTL_API_KEY: key },
      secrets: [key],
    });

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(result.stderr).not.toMatch(/retry/);
    expect(result.stderr).not.toContain('attempts');
    expect(result.stderr).toMatch(new RegExp(`connection refused: nothing is listening on 127\\.0\\.0\\.1:${port} \\(network_error\\)`));
    // Not the sandbox's default port: no word of the sandbox.
    expect(result.stderr).not.toMatch(/petctl sandbox/);
  });

  it("nothing listening on the sandbox's default port (4010): the hint names petctl sandbox", async (t) => {
    // Something else (a running sandbox) holds the port on this machine: the case cannot be made here.
    if (!(await loopbackPortIsFree(4010))) t.skip();

    const result = await runCli(['--base-url', 'http://127.0.0.1:4010/v1', 'pets', 'list'], {
      env: { PETCTL_CONFIG_DIR: tempDir(), PETCTL_API_KEY: newApiKey() },
    });

    expect(result.code).toBe(7);
    expect(result.stderr).not.toMatch(/retry/);
    expect(result.stderr).toBe(
      'error: GET http://127.0.0.1:4010/v1/pets failed: connection refused: nothing is listening on 127.0.0.1:4010 (network_error)\n' +
        'hint: is the sandbox running? start it with petctl sandbox\n',
    );
  });
});

describe.concurrent('timeouts', () => {
  it('a server that never answers: --timeout 0.5 --retries 0 → exit 7, code timeout', async (t) => {
    const { server, petctl } = await setupE2e(t, { hang: true });

    const result = await petctl(['--timeout', '0.5', '--retries', '0', '-o', 'json', 'pets', 'list']);

    expect(result.code).toBe(7);
    expect(result.stdout).toBe('');
    const error = jsonError(result);
    expect(error).toMatchObject({ code: 'timeout', status: 0 });
    expect(error.message).toMatch(/0\.5s/);
    expect(server.requests).toHaveLength(1);
  });

  it('GET: a timeout is retried (--retries 1 → two requests), the retry named and the attempts counted', async (t) => {
    const { server, petctl } = await setupE2e(t, { hang: true });

    const result = await petctl(['--timeout', '0.5', '--retries', '1', 'pets', 'list']);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(result.stderr).toMatch(/^petctl: retry 1\/1 in \d(\.\d)?s: no answer within 0\.5s$/m);
    expect(result.stderr).toMatch(/^error: no answer from 127\.0\.0\.1:\d+ within 0\.5s \(--timeout\), 2 attempts over \d+(\.\d)?s \(timeout\)$/m);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(500 - 50);

    // -q silences the retries, not the count in the final error.
    const quiet = await petctl(['-q', '--timeout', '0.5', '--retries', '1', 'pets', 'list']);
    expect(quiet.code).toBe(7);
    expect(quiet.stderr).not.toContain('petctl: retry');
    expect(quiet.stderr).toMatch(/, 2 attempts over \d+(\.\d)?s \(timeout\)$/m);
  });

  it('POST: a timeout once sent is never retried, and says the animal may exist', async (t) => {
    const { server, petctl } = await setupE2e(t, { hang: true });

    const result = await petctl(['--timeout', '0.5', ...ADD]);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(result.stderr).toMatch(/\(timeout\)$/m);
    expect(result.stderr).toMatch(/^hint: the animal may or may not have been created/m);
    expect(server.requests).toHaveLength(1);
  });

  it('a body that stalls half way also times out', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('[{"id":1,');
    });

    const result = await petctl(['--timeout', '0.5', '--retries', '0', 'pets', 'list']);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(result.stderr).toMatch(/\(timeout\)$/m);
  });
});

describe.concurrent('answers that are not what the specification says', () => {
  // Each body the specification refuses, and its words, is test/api/endpoints/pets.test.ts's and answer.test.ts's.
  it('HTML on a 200 → exit 7 invalid_response, a clear message', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ status: 200, headers: { 'content-type': 'text/html' }, body: HTML_502 });

    const result = await petctl(['pets', 'list']);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(result.stderr).toMatch(/answered 200 with a body that is not JSON: <html>/);
    expect(result.stderr).toMatch(/\(invalid_response, HTTP 200\)$/m);
    // A 200 is an answer: it is not retried, whatever it holds.
    expect(server.requests).toHaveLength(1);
  });

  it('-o json: one JSON line with code invalid_response and the HTTP status', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ status: 200, headers: { 'content-type': 'text/html' }, body: HTML_502 });

    const result = await petctl(['-o', 'json', 'pets', 'list']);

    expect(result.code).toBe(7);
    expect(result.stdout).toBe('');
    expect(jsonError(result)).toMatchObject({ code: 'invalid_response', status: 200 });
  });
});

describe.concurrent('error answers and their exit codes', () => {
  it('401 with an Error body → exit 4, the server code, and the hint to log in', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const body = { code: 'unauthorized', message: 'API key missing or invalid', status: 401 };
    server.reply(json(401, body), json(401, body));

    const result = await petctl(['pets', 'list']);

    expect(result.code).toBe(4);
    expectCleanError(result);
    // The key came from PETCTL_API_KEY, so logging in would not help.
    expect(result.stderr).toBe('error: API key missing or invalid (unauthorized, HTTP 401)\nhint: PETCTL_API_KEY was rejected; check its value or unset it to use the stored key\n');
    expect(server.requests).toHaveLength(1);

    const asJson = await petctl(['-o', 'json', 'pets', 'list']);
    expect(asJson.code).toBe(4);
    expect(asJson.stderr).toBe(`${JSON.stringify(body)}\n`);
  });

  it('401 without an Error body (an HTML page) → still exit 4 with the hint', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ status: 401, headers: { 'content-type': 'text/html' }, body: '<html>Unauthorized</html>' });

    const result = await petctl(['pets', 'list']);

    expect(result.code).toBe(4);
    expectCleanError(result);
    expect(result.stderr).toMatch(/HTTP 401/);
    expect(result.stderr).toMatch(/^hint: PETCTL_API_KEY was rejected; check its value or unset it to use the stored key$/m);
  });
});

describe.concurrent('int64 and fields beyond the specification', () => {
  const BIG = '9007199254740993';
  const MAX = '9223372036854775807';

  it('an id above 2^53 in a list is printed digit for digit (json, ndjson, table)', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const text = `[{"id":${BIG},"name":"Big","categoryId":${MAX},"status":"sold"}]`;
    server.reply({ status: 200, body: text }, { status: 200, body: text }, { status: 200, body: text });

    const asJson = await petctl(['-o', 'json', 'pets', 'list']);
    expect(asJson.code).toBe(0);
    expect(asJson.stdout).toMatch(new RegExp(`"id": ?${BIG}\\b`));
    expect(asJson.stdout).toMatch(new RegExp(`"categoryId": ?${MAX}\\b`));

    const asNdjson = await petctl(['-o', 'ndjson', 'pets', 'list']);
    expect(asNdjson.stdout).toBe(`{"id":${BIG},"name":"Big","categoryId":${MAX},"status":"sold"}\n`);

    const asTable = await petctl(['pets', 'list']);
    expect(asTable.stdout).toBe(`${BIG}\tBig\t${MAX}\tsold\n`);
  });
});

describe.concurrent('--verbose', () => {
  it('traces method, URL, status and X-RateLimit-*, with Authorization redacted', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const reset = String(Math.floor(Date.now() / 1000) + 60);
    server.reply(json(200, [PET], { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': reset }));

    const result = await petctl(['--verbose', 'pets', 'list', '--limit', '5']);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(PET_LINE);
    expect(result.stderr).toContain(`> GET http://127.0.0.1:${new URL(server.baseUrl).port}/v1/pets?limit=5\n`);
    expect(result.stderr).toContain('Authorization: Bearer [redacted]');
    expect(result.stderr).toMatch(/^< 200 in \d+ ms /m);
    expect(result.stderr).toMatch(/x-ratelimit-limit[=:] ?60\b/i);
    expect(result.stderr).toMatch(/x-ratelimit-remaining[=:] ?59\b/i);
    expect(result.stderr).toMatch(new RegExp(`x-ratelimit-reset[=:] ?${reset}\\b`, 'i'));
  });

  it('traces each attempt of a retry, with Retry-After', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(json(429, { code: 'rate_limited', message: 'slow down', status: 429 }, { 'retry-after': '1' }), json(201, PET));

    const result = await petctl(['-v', ...ADD]);

    expect(result.code).toBe(0);
    expect(result.stderr.match(/^> POST /gm)).toHaveLength(2);
    expect(result.stderr.match(/Authorization: Bearer \[redacted\]/g)).toHaveLength(2);
    expect(result.stderr).toMatch(/^< 429 in \d+ ms .*retry-after[=:] ?1\b/im);
    expect(result.stderr).toMatch(/^< 201 in \d+ ms/m);
  });
});

interface Proxy {
  url: string;
  /** CONNECT targets (host:port) and plain proxied request URLs, in arrival order. */
  seen: string[];
  close(): Promise<void>;
}

/** A tiny forward proxy on loopback that records what it is asked for and refuses it (502) or hangs up. */
async function startProxy(mode: 'refuse' | 'hang-up'): Promise<Proxy> {
  const seen: string[] = [];
  const proxy = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(502).end();
  });
  proxy.on('connect', (req: http.IncomingMessage, socket: import('node:net').Socket) => {
    seen.push(`CONNECT ${req.url}`);
    if (mode === 'hang-up') socket.destroy();
    else socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

describe.concurrent('proxies', () => {
  const REMOTE = 'https://pets.example.test/v1';

  async function runRemote(env: Record<string, string>, extra: string[] = []): Promise<CliResult> {
    const key = newApiKey();
    const configDir = tempDir();
    return runCli(['--base-url', REMOTE, '--retries', '0', '--timeout', '3', ...extra, 'pets', 'list'], {
      env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key, ...env },
      secrets: [key],
      // Failing means looping (undici reconnected to a proxy that hangs up for ever): stop it early.
      timeoutMs: 10_000,
    });
  }

  it.for([
    { variable: 'HTTPS_PROXY', mode: 'refuse' as const },
    { variable: 'https_proxy', mode: 'refuse' as const },
    { variable: 'HTTP_PROXY', mode: 'refuse' as const },
    { variable: 'HTTPS_PROXY', mode: 'hang-up' as const },
  ])('$variable: the tunnel is asked of the proxy (CONNECT pets.example.test:443); when it $mode, exit 7 cleanly', async ({ variable, mode }, t) => {
    const proxy = await startProxy(mode);
    t.onTestFinished(() => proxy.close());

    const result = await runRemote({ [variable]: proxy.url }, ['-o', 'json']);

    expect(proxy.seen).toEqual(['CONNECT pets.example.test:443']);
    expect(result.code).toBe(7);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain('    at ');
    const error = jsonError(result);
    expect(error).toMatchObject({ code: 'network_error', status: 0 });
    expect(error.message).toMatch(mode === 'refuse' ? /Proxy response \(502\)/ : /the proxy closed the connection while opening the tunnel/);
  });

  it('a proxy that keeps hanging up: each retry asks once more, no storm of reconnects', async (t) => {
    const proxy = await startProxy('hang-up');
    t.onTestFinished(() => proxy.close());

    const key = newApiKey();
    const result = await runCli(['--base-url', REMOTE, '--retries', '2', '--timeout', '3', 'pets', 'list'], {
      env: { PETCTL_CONFIG_DIR: tempDir(), PETCTL_API_KEY: key, HTTPS_PROXY: proxy.url },
      secrets: [key],
      timeoutMs: 15_000,
    });

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(proxy.seen).toEqual(Array(3).fill('CONNECT pets.example.test:443'));
  });

  it('NO_PROXY=pets.example.test: the proxy sees nothing', async (t) => {
    const proxy = await startProxy('refuse');
    t.onTestFinished(() => proxy.close());

    // pets.example.test does not resolve (.test is reserved), so this fails too, but without the proxy.
    const result = await runRemote({ HTTPS_PROXY: proxy.url, NO_PROXY: 'pets.example.test' });

    expect(proxy.seen).toEqual([]);
    expect(result.code).toBe(7);
    expectCleanError(result);
  });

  it('a loopback base URL never goes through the proxy', async (t) => {
    const proxy = await startProxy('refuse');
    t.onTestFinished(() => proxy.close());
    const { server, petctl } = await setupE2e(t);
    server.reply(json(200, [PET]));

    const result = await petctl(['pets', 'list'], { env: { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, ALL_PROXY: proxy.url } });

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(PET_LINE);
    expect(server.requests).toHaveLength(1);
    expect(proxy.seen).toEqual([]);
  });
});

describe.concurrent('Ctrl-C', () => {
  it('while a request is in flight: ends by SIGINT at once, no stack trace', async (t) => {
    const { server, petctl } = await setupE2e(t);
    // The answer would come after 5 s; SIGINT arrives as soon as the request does.
    server.reply({ status: 200, body: [PET], delayMs: 5000 });

    const result = await petctl(['pets', 'list'], {
      onSpawn: (child) => void server.received(1).then(() => child.kill('SIGINT')),
    });

    // Had petctl waited for the answer, it would have printed the pet and exited 0.
    expect(result).toMatchObject({ code: null, signal: 'SIGINT' });
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe('');
    expect(server.requests).toHaveLength(1);
  });

  it('while waiting out a Retry-After: ends by SIGINT, nothing more sent', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(json(429, { code: 'rate_limited', message: 'slow down', status: 429 }, { 'retry-after': '20' }), json(200, [PET]));

    const result = await petctl(['pets', 'list'], {
      onSpawn: (child) => {
        let stderr = '';
        child.stderr?.on('data', (chunk: string) => {
          stderr += chunk;
          if (stderr.includes('retry 1/')) child.kill('SIGINT');
        });
      },
    });

    expect(result).toMatchObject({ code: null, signal: 'SIGINT' });
    expect(result.stderr).toMatch(/^petctl: retry 1\/4 in 20s: HTTP 429\n\n?$/);
    expect(server.requests).toHaveLength(1);
  });
});

describe.concurrent('a base URL that would send the key in clear text', () => {
  it.for([
    { how: '--base-url', args: ['--base-url', 'http://example.org/v1'], env: {} },
    { how: 'PETCTL_BASE_URL', args: [], env: { PETCTL_BASE_URL: 'http://example.org/v1' } },
  ])('an http:// base URL off loopback ($how) → exit 2: the key would travel in clear text', async ({ args, env }) => {
    const key = newApiKey();
    const result = await runCli([...args, 'pets', 'list'], { env: { PETCTL_CONFIG_DIR: tempDir(), PETCTL_API_KEY: key, ...env }, secrets: [key] });

    expect(result.code).toBe(2);
    expectCleanError(result);
    expect(result.stderr).toMatch(/http:\/\/ for example\.org: the API key would travel in clear text; use https:\/\//);
  });
});
