import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { type TestContext, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES } from '../../src/api/transport';
import { type CliResult, cliSession, expectCleanError, jsonError, newApiKey, setupE2e, tempDir } from '../helpers/cli';
import { namedTime } from '../helpers/local-time';
import { json, startScriptedServer } from '../helpers/scripted-server';

/**
 * Hostile servers on loopback (redirects, floods, untrusted certificates, IPv6 only): each case checks the
 * exit code, one error line, the requests received, and no key in any output. docs/reliability.md counts them.
 */

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const PET_LINE = '1\tRex\t1\tavailable\n';
const RATE_LIMITED = { code: 'rate_limited', message: 'slow down', status: 429 };

/** The one `error:` line (and at most a hint after it). */
function errorLine(result: CliResult): string {
  const lines = result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('hint: '));
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe.concurrent('redirects are errors, never followed', () => {
  it.for([301, 302, 303, 307, 308])('GET answered %i → exit 7, redirected, one request', async (status, t) => {
    const { server, petctl } = await setupE2e(t);
    const elsewhere = `${server.baseUrl.replace('/v1', '')}/v2/pets`;
    server.reply({ status, headers: { location: elsewhere }, body: '' });

    const result = await petctl(['pets', 'list']);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(errorLine(result)).toBe(
      `error: GET ${server.baseUrl}/pets was redirected (HTTP ${status}) to ${elsewhere}; petctl does not follow redirects: check the base URL (redirected, HTTP ${status})`,
    );
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/pets']);
  });

  it('-o json: one JSON line, code redirected, status 302; a POST is not re-sent either', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ status: 302, headers: { location: '/login' }, body: '<html>moved</html>' });

    const result = await petctl(['-o', 'json', 'pets', 'add', '--name', 'Rex', '--category-id', '1']);

    expect(result.code).toBe(7);
    expect(result.stdout).toBe('');
    expect(jsonError(result)).toEqual({
      code: 'redirected',
      message: `POST ${server.baseUrl}/pets was redirected (HTTP 302) to /login; petctl does not follow redirects: check the base URL`,
      status: 302,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('a redirect loop (every answer points back at itself): one request, exit 7', async (t) => {
    const { server, petctl } = await setupE2e(t, { status: 307, headers: { location: '' }, body: '' });
    // The fallback answers every request: a client that followed would loop until its own limit.
    server.reply((request, res) => res.writeHead(307, { location: `http://127.0.0.1:${server.port}${request.url}` }).end());

    const result = await petctl(['pets', 'list', '--limit', '5']);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(errorLine(result)).toContain(`was redirected (HTTP 307) to http://127.0.0.1:${server.port}/v1/pets?limit=5;`);
    expect(server.requests).toHaveLength(1);
  });

  it('a redirect to another host: that host never sees a request, so the key never travels', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const other = await startScriptedServer(json(200, [PET]));
    t.onTestFinished(() => other.close());
    // localhost is another origin for the client, though the same machine: the key must stay where it was sent.
    const elsewhere = `http://localhost:${other.port}/v1/pets`;
    server.reply({ status: 302, headers: { location: elsewhere }, body: '' });

    const result = await petctl(['-v', 'pets', 'list']);

    expect(result.code).toBe(7);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`to ${elsewhere}; petctl does not follow redirects`);
    expect(server.requests).toHaveLength(1);
    expect(other.requests).toHaveLength(0);
  });

  it('a 5,000-character Location is cut to 300 characters, keeping the message one line', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const location = `https://captive.example.test/${'a'.repeat(5000)}`;
    server.reply({ status: 302, headers: { location }, body: '' });

    const result = await petctl(['pets', 'list']);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(errorLine(result)).toContain(`to ${location.slice(0, 297)}...; petctl does not follow redirects`);
    expect(server.requests).toHaveLength(1);
  });

  it('a 3xx without Location still exits 7 with code redirected', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ status: 300, body: '' });

    const result = await petctl(['pets', 'list']);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(errorLine(result)).toMatch(/was redirected \(HTTP 300\) without a Location header; .* \(redirected, HTTP 300\)$/);
  });
});

/** Bytes the server managed to hand to the socket before petctl hung up. */
interface Flood {
  written: () => number;
  closed: Promise<void>;
}

/**
 * Streams `total` bytes (Infinity: for ever) of a JSON-looking body,
 * honouring backpressure, so the test itself never holds more than a chunk.
 */
function flood(res: http.ServerResponse, total: number): Flood {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let written = 0;
  const closed = new Promise<void>((resolve) => res.on('close', resolve));
  res.writeHead(200, { 'content-type': 'application/json', ...(Number.isFinite(total) ? { 'content-length': String(total) } : {}) });
  res.write('[');
  const pump = () => {
    while (written < total && !res.destroyed) {
      written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end(']');
  };
  pump();
  return { written: () => written, closed };
}

/** Samples the child's peak resident memory from /proc (Linux), in bytes; 0 where /proc is missing. */
function watchPeakRss(pid: number | undefined): { peak: () => number; stop: () => void } {
  let peak = 0;
  const sample = () => {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      if (hwm) peak = Math.max(peak, Number(hwm[1]) * 1024);
    } catch {
      // The process has ended.
    }
  };
  const timer = setInterval(sample, 20);
  return { peak: () => peak, stop: () => clearInterval(timer) };
}

describe.concurrent('bodies too large to hold', () => {
  // The kernel's socket buffers on loopback hold a few MiB beyond what petctl reads.
  const SLACK = 48 * 1024 * 1024;

  it.for([
    { what: 'a 2 GB body (Content-Length 2147483648)', total: 2 * 1024 ** 3 },
    { what: 'an endless chunked body', total: Number.POSITIVE_INFINITY },
  ])('$what: exit 7 invalid_response at the cap, memory bounded, not retried', { timeout: 90_000 }, async ({ total }, t) => {
    const { server, petctl } = await setupE2e(t);
    let stream: Flood | undefined;
    server.reply((_request, res) => {
      stream = flood(res, total);
    });
    let rss: ReturnType<typeof watchPeakRss> | undefined;

    const result = await petctl(['pets', 'list'], { onSpawn: (child) => (rss = watchPeakRss(child.pid)), timeoutMs: 60_000 });
    rss!.stop();
    await stream!.closed;

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(errorLine(result)).toBe(
      `error: GET ${server.baseUrl}/pets answered with a body over ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB; petctl stopped reading it (invalid_response, HTTP 200)`,
    );
    expect(server.requests).toHaveLength(1);
    expect(stream!.written()).toBeLessThan(MAX_RESPONSE_BYTES + SLACK);
    // Holding 2 GB (or a few hundred MiB of an endless body) would show here; petctl itself needs ~60 MiB.
    if (process.platform === 'linux') expect(rss!.peak()).toBeLessThan(256 * 1024 * 1024);
  });
});

describe.concurrent('hostile rate-limit headers: never a negative or unbounded wait', () => {
  // Each other unusable value (negative, NaN, 1e3, empty, zero) is read as absent in test/api/retry.test.ts
  // (parseRetryAfter), and held for in test/api/hold.test.ts.
  it('Retry-After huge (10^12 s): exit 5 at once, waiting is capped at 25 h, and the next process is told when', async (t) => {
    const { server, petctl, configDir } = await setupE2e(t);
    server.reply(json(429, RATE_LIMITED, { 'retry-after': '1000000000000' }));
    const before = Date.now();

    const result = await petctl(['pets', 'list']);

    expect(result.code).toBe(5);
    expectCleanError(result);
    expect(errorLine(result)).toMatch(/Try again at [\d: -]+, in 25h00m/);
    const retryAt = namedTime(errorLine(result));
    expect(retryAt).toBeGreaterThan(before);
    expect(retryAt).toBeLessThanOrEqual(Date.now() + 25 * 3600 * 1000);
    expect(server.requests).toHaveLength(1);

    const next = await petctl(['pets', 'list']);
    expect(next.code).toBe(5);
    expect(errorLine(next)).toMatch(/nothing sent/);
    expect(server.requests).toHaveLength(1);
    expect(() => JSON.parse(fs.readFileSync(path.join(configDir, 'state.json'), 'utf8'))).not.toThrow();
  });
});

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl; undefined when openssl is missing. */
function selfSignedCertificate(): { key: string; cert: string; certFile: string } | undefined {
  const dir = tempDir('petctl-tls-');
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile,
        '-days', '2', '-subj', '/CN=petctl test', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-addext', 'basicConstraints=critical,CA:TRUE'],
      { stdio: 'ignore' },
    );
  } catch {
    return undefined;
  }
  return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), certFile };
}

const certificate = selfSignedCertificate();

function startTlsServer(t: Pick<TestContext, 'onTestFinished'>) {
  return setupE2e(t, json(200, [PET]), { tls: { key: certificate!.key, cert: certificate!.cert } });
}

describe.skipIf(!certificate)('https with a self-signed certificate (openssl needed)', { concurrent: true }, () => {
  it('untrusted: exit 7 naming the certificate; no request (so no key) reached the server', async (t) => {
    const { server, petctl } = await startTlsServer(t);

    const result = await petctl(['--retries', '0', 'pets', 'list']);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(errorLine(result)).toMatch(
      /^error: GET https:\/\/127\.0\.0\.1:\d+\/v1\/pets failed: the server's TLS certificate is not trusted \(self[- ]signed certificate\); nothing was sent\. For a private CA, set NODE_EXTRA_CA_CERTS to its certificate file \(network_error\)$/,
    );
    expect(server.requests).toHaveLength(0);
    expect(server.tlsErrors.length).toBeGreaterThanOrEqual(1);
  });

  it('POST, -o json with retries: each attempt fails the handshake, none sends a request; bounded by --retries', async (t) => {
    const { server, petctl } = await startTlsServer(t);

    // -q: the retry's notice aside, stderr is the one JSON error line.
    const result = await petctl(['-q', '-o', 'json', '--retries', '1', 'pets', 'add', '--name', 'Rex', '--category-id', '1']);

    expect(result.code).toBe(7);
    expect(jsonError(result)).toMatchObject({ code: 'network_error', status: 0 });
    expect(server.requests).toHaveLength(0);
    expect(server.tlsErrors.length).toBeLessThanOrEqual(2);

    // Nothing was sent, so the POST's "may or may not have been created" hint would be wrong.
    const human = await petctl(['--retries', '0', 'pets', 'add', '--name', 'Rex', '--category-id', '1']);
    expect(human.code).toBe(7);
    expectCleanError(human);
    expect(human.stderr).toContain('nothing was sent');
    expect(human.stderr).not.toContain('may or may not');
    expect(server.requests).toHaveLength(0);
  });

  it('trusted through NODE_EXTRA_CA_CERTS: exit 0, and the key arrives over TLS', async (t) => {
    const { server, key, petctl } = await startTlsServer(t);

    const result = await petctl(['pets', 'list'], { env: { NODE_EXTRA_CA_CERTS: certificate!.certFile } });

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(PET_LINE);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
  });
});

/** Whether this machine can listen on ::1 (containers without IPv6 cannot). */
async function hasIpv6Loopback(): Promise<boolean> {
  try {
    const probe = await startScriptedServer(undefined, { host: '::1' });
    await probe.close();
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!(await hasIpv6Loopback()))('IPv6 loopback', { concurrent: true }, () => {
  async function startV6(t: Pick<TestContext, 'onTestFinished'>) {
    const server = await startScriptedServer(undefined, { host: '::1' });
    const key = newApiKey();
    const configDir = tempDir();
    t.onTestFinished(async () => {
      await server.close();
      fs.rmSync(configDir, { recursive: true, force: true });
    });
    return { server, key, configDir, petctl: cliSession({ env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }, secrets: [key] }) };
  }

  it('http://[::1]:port/v1 through --base-url: plain http is allowed (loopback), list and add work', async (t) => {
    const { server, key, petctl } = await startV6(t);
    expect(server.baseUrl).toMatch(/^http:\/\/\[::1\]:\d+\/v1$/);
    server.reply(json(200, [PET]), json(201, { ...PET, id: 2 }));

    const list = await petctl(['--base-url', server.baseUrl, 'pets', 'list']);
    const add = await petctl(['--base-url', server.baseUrl, 'pets', 'add', '--name', 'Rex', '--category-id', '1', '-o', 'json']);

    expect(list.code).toBe(0);
    expect(list.stdout).toBe(PET_LINE);
    expect(add.code).toBe(0);
    expect(JSON.parse(add.stdout)).toMatchObject({ id: 2 });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1/pets', 'POST /v1/pets']);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
  });

  it('a profile on [::1] and a 429 there: the wait is kept per base URL and honoured by the next process', async (t) => {
    const { server, petctl } = await startV6(t);
    server.reply(json(429, RATE_LIMITED, { 'retry-after': '120' }));

    expect((await petctl(['profile', 'add', 'v6', '--base-url', server.baseUrl])).code).toBe(0);
    const first = await petctl(['-p', 'v6', 'pets', 'list']);
    const next = await petctl(['-p', 'v6', 'pets', 'list']);

    expect([first.code, next.code]).toEqual([5, 5]);
    expectCleanError(next);
    expect(server.requests).toHaveLength(1);
  });

  it('nothing listening on [::1]: exit 7, connection refused', async (t) => {
    const { server, petctl } = await startV6(t);
    const url = server.baseUrl;
    await server.close();

    const result = await petctl(['--base-url', url, '--retries', '0', 'pets', 'list']);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(errorLine(result)).toMatch(/^error: GET http:\/\/\[::1\]:\d+\/v1\/pets failed: connection refused: nothing is listening on \[::1\]:\d+ \(network_error\)$/);
  });
});
