import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'vitest';

/** For the faults the sandbox never produces; every request recorded, `verify()` fails on unused answers (gh's httpmock.Verify). */

export interface RecordedRequest {
  method: string;
  url: string;
  /** Without the query, which `query` holds decoded. */
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body exactly as received, to check int64 digits byte for byte. */
  bodyBytes: Buffer;
  /** Date.now() on arrival. */
  at: number;
}

export type Reply =
  | { status: number; headers?: Record<string, string>; body?: string | object; /** answer this late */ delayMs?: number }
  | { destroy: true }
  /** Never answer: the connection stays open until the client gives up or the server closes. */
  | { hang: true }
  | ((request: RecordedRequest, res: http.ServerResponse) => void);

/** `tls`: https with this key and certificate (PEM); `closeAfter`: closed when that test ends. */
export interface ScriptedServerOptions {
  host?: '127.0.0.1' | '::1';
  tls?: { key: string; cert: string };
  closeAfter?: Pick<TestContext, 'onTestFinished'>;
}

export type ScriptedServer = Awaited<ReturnType<typeof startScriptedServer>>;

/** The X-RateLimit-* headers of a window with `remaining` left that resets `resetInS` seconds from `now` (whole seconds, as servers send it). */
export function limitHeaders(now: number, remaining: number, resetInS: number, limit = 60): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(Math.ceil(now / 1000) + resetInS),
  };
}

/** The animal a scripted list answers with, and its line as `pets list` prints it piped. */
export const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
export const PET_LINE = '1\tRex\t1\tavailable\n';

export function json(status: number, body: object, headers: Record<string, string> = {}): Reply {
  return { status, body, headers };
}

export async function startScriptedServer(
  fallback: Reply = { status: 500, body: { code: 'unscripted', message: 'no reply scripted', status: 500 } },
  options: ScriptedServerOptions = {},
) {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const waiters: Array<{ count: number; resolve: (requests: RecordedRequest[]) => void }> = [];
  const tlsErrors: Error[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = new URL(req.url ?? '/', 'http://scripted.invalid');
      const bodyBytes = Buffer.concat(chunks);
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: target.pathname,
        query: Object.fromEntries(target.searchParams),
        headers: req.headers,
        body: bodyBytes.toString('utf8'),
        bodyBytes,
        at: Date.now(),
      };
      requests.push(recorded);
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(requests.slice());
      }
      const reply = queue.shift() ?? fallback;
      if (typeof reply === 'function') return reply(recorded, res);
      if ('destroy' in reply) return req.socket.destroy();
      if ('hang' in reply) return;
      const body = typeof reply.body === 'string' ? reply.body : reply.body === undefined ? '' : JSON.stringify(reply.body);
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(body);
      };
      if (!reply.delayMs) return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, reply.delayMs);
      timers.add(timer);
    });
  };
  const server = options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
  server.on('tlsClientError', (error: Error) => tlsErrors.push(error));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  options.closeAfter?.onTestFinished(close);
  return {
    baseUrl: `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
    /** For URLs of another form (http://localhost:<port>). */
    port,
    requests,
    /** TLS handshakes that failed: the client refused the certificate. */
    tlsErrors,
    /** Answers used in order; once they run out, `fallback` answers. */
    reply: (...replies: Reply[]) => void queue.push(...replies),
    /** Resolves once `count` requests have arrived in all. */
    received: (count: number): Promise<RecordedRequest[]> =>
      requests.length >= count ? Promise.resolve(requests.slice()) : new Promise((resolve) => waiters.push({ count, resolve })),
    verify() {
      if (queue.length > 0) throw new Error(`${queue.length} scripted replies were never requested`);
    },
    close,
  };
}
