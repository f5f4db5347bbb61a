import fs from 'node:fs';
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES } from '../../src/api/transport';
import { type CliResult, cliSession, expectCleanError, jsonError, setupE2e, tempDir } from '../helpers/cli';
import { selfSignedCertificate } from '../helpers/redis-server';
import { PET, PET_LINE, json, startScriptedServer } from '../helpers/scripted-server';

/** Hostile servers on loopback: redirects, floods, untrusted certificates, IPv6 only. */

const RATE_LIMITED = { code: 'rate_limited', message: 'slow down', status: 429 };

/** The one `error:` line (and at most a hint after it). */
function errorLine(result: CliResult): string {
  const lines = result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('hint: '));
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

it.concurrent('a POST redirected to another host: exit 7, one JSON line; that host never sees a request, so the key never travels', async (t) => {
  const { server, petctl } = await setupE2e(t);
  const other = await startScriptedServer(json(200, [PET]), { closeAfter: t });
  // localhost is another origin, though the same machine.
  const elsewhere = `http://localhost:${other.port}/v1/pets`;
  server.reply({ status: 307, headers: { location: elsewhere }, body: '<html>moved</html>' });

  const result = await petctl(['-o', 'json', 'pets', 'add', '--name', 'Rex', '--category-id', '1']);

  expect(result.code).toBe(7);
  expect(result.stdout).toBe('');
  expect(jsonError(result)).toEqual({
    code: 'redirected',
    message: `POST ${server.baseUrl}/pets was redirected (HTTP 307) to ${elsewhere}; petctl does not follow redirects: check the base URL`,
    status: 307,
  });
  expect(server.requests).toHaveLength(1);
  expect(other.requests).toHaveLength(0);
});

/** Streams `total` bytes (Infinity: for ever) of a JSON-looking body, honouring backpressure. */
function flood(res: http.ServerResponse, total: number) {
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
    } catch {}
  };
  const timer = setInterval(sample, 20);
  return { peak: () => peak, stop: () => clearInterval(timer) };
}

const SLACK = 48 * 1024 * 1024;

it.concurrent.for([
  { what: 'a 2 GB body (Content-Length 2147483648)', total: 2 * 1024 ** 3 },
  { what: 'an endless chunked body', total: Number.POSITIVE_INFINITY },
])('$what: exit 7 invalid_response at the cap, memory bounded, not retried', { timeout: 90_000 }, async ({ total }, t) => {
  const { server, petctl } = await setupE2e(t);
  let stream: ReturnType<typeof flood> | undefined;
  server.reply((_request, res) => {
    stream = flood(res, total);
  });
  let rss: ReturnType<typeof watchPeakRss> | undefined;

  const result = await petctl(['pets', 'list'], { onSpawn: (child) => (rss = watchPeakRss(child.pid)), timeoutMs: 60_000 });
  rss!.stop();
  await stream!.closed;

  expectCleanError(result, 7);
  expect(errorLine(result)).toBe(
    `error: GET ${server.baseUrl}/pets answered with a body over ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB; petctl stopped reading it (invalid_response, HTTP 200)`,
  );
  expect(server.requests).toHaveLength(1);
  expect(stream!.written()).toBeLessThan(MAX_RESPONSE_BYTES + SLACK);
  if (process.platform === 'linux') expect(rss!.peak()).toBeLessThan(256 * 1024 * 1024);
});

const certificate = selfSignedCertificate(tempDir('petctl-tls-'));

describe.skipIf(!certificate)('https with a self-signed certificate (openssl needed)', () => {
  it('untrusted: exit 7 naming the certificate; no request (so no key) reached the server, however many attempts; trusted through NODE_EXTRA_CA_CERTS: exit 0, and the key arrives over TLS', async (t) => {
    const tls = { key: certificate!.key, cert: certificate!.cert };
    const { server, key, petctl } = await setupE2e(t, json(200, [PET]), { tls });

    const result = await petctl(['--retries', '0', 'pets', 'list']);

    expectCleanError(result, 7);
    expect(errorLine(result)).toMatch(
      /^error: GET https:\/\/127\.0\.0\.1:\d+\/v1\/pets failed: the server's TLS certificate is not trusted \(self[- ]signed certificate\); nothing was sent\. For a private CA, set NODE_EXTRA_CA_CERTS to its certificate file \(network_error\)$/,
    );
    expect(server.tlsErrors).toHaveLength(1);

    const post = await petctl(['-q', '--retries', '1', 'pets', 'add', '--name', 'Rex', '--category-id', '1']);
    expectCleanError(post, 7);
    expect(post.stderr).toContain('nothing was sent');
    expect(post.stderr).not.toContain('may or may not');
    expect(server.tlsErrors.length).toBeLessThanOrEqual(3);
    expect(server.requests).toHaveLength(0);

    const trusted = await petctl(['pets', 'list'], { env: { NODE_EXTRA_CA_CERTS: certificate!.certFile } });
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toBe(PET_LINE);
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
  it('http://[::1]:port/v1 (plain http is allowed on loopback): a profile lists, and a 429 there is kept for the next process', async (t) => {
    const { server, key, configDir } = await setupE2e(t, undefined, { host: '::1' });
    const petctl = cliSession({ env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }, secrets: [key] });
    expect(server.baseUrl).toMatch(/^http:\/\/\[::1\]:\d+\/v1$/);
    server.reply(json(200, [PET]), json(429, RATE_LIMITED, { 'retry-after': '120' }));

    expect((await petctl(['profile', 'add', 'v6', '--base-url', server.baseUrl])).code).toBe(0);
    const list = await petctl(['-p', 'v6', 'pets', 'list']);
    const limited = await petctl(['-p', 'v6', 'pets', 'list']);
    const next = await petctl(['-p', 'v6', 'pets', 'list']);

    expect(list.code).toBe(0);
    expect(list.stdout).toBe(PET_LINE);
    expect([limited.code, next.code]).toEqual([5, 5]);
    expectCleanError(next);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1/pets', 'GET /v1/pets']);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
  });
});
