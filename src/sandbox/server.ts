/**
 * The embedded Pet Adoption Service on node:http (docs/sandbox.md). Checks in order: authentication → rate limit (a
 * request without a valid key counts against its address) → the authentication's refusal → path → method → parameters,
 * media type, size and body → the store.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { ADDRESS_LIMITS, answerClientError, type Exchange, GET_PET_DEPRECATION_HEADERS, rateLimitHeaders, rateLimitRefusal, send, sendError } from './answers';
import { BASE_PATH, DEFAULT_HOST, DEFAULT_PORT } from './defaults';
import { SandboxDataFileError, SandboxHttpError } from './errors';
import { openFileStore } from './file-store';
import { sandboxKeys, type SandboxKey, type SandboxKeyOptions } from './keys';
import { memoryRateLimits, openFileRateLimits, rateLimitPolicy, type RateLimitBook, type RateLimitPolicyOptions } from './rate-limiter';
import { createMemoryStore, type PetStore } from './store';
import { authenticate, checkJsonContentType, parseListQuery, parseNewPet, parsePetId, readJsonBody } from './validation';

export interface SandboxOptions extends Pick<RateLimitPolicyOptions, 'minuteMs'>, SandboxKeyOptions {
  host?: string;
  port?: number;
  /** Absent: in memory. */
  dataFile?: string;
  maxAnimals?: number;
  /** One line per request. Never the key. */
  log?: (line: string) => void;
  /** The rate limiter's clock. */
  now?: () => number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export interface RunningSandbox {
  baseUrl: string;
  port: number;
  keys: readonly SandboxKey[];
  server: Server;
  /** Waits for adds and writes the rate-limit counts. */
  close(): Promise<void>;
}

type CachedPage = { version: number; body: Buffer; link: string | undefined };

function createSandboxServer(store: PetStore, rateLimits: RateLimitBook, options: SandboxOptions): Server {
  const keys = sandboxKeys(options);
  const now = options.now ?? Date.now;
  const log = options.log;
  // Pages of GET /v1/pets ready to send, per query string, until the animals change.
  const pages = new Map<string, CachedPage>();

  const listPage = (search: string): CachedPage => {
    store.refresh();
    const cached = pages.get(search);
    if (cached && cached.version === store.version) return cached;
    const query = parseListQuery(new URLSearchParams(search));
    const page = store.page(query);
    const link =
      page.nextAfter === undefined
        ? undefined
        : `<${BASE_PATH}/pets?limit=${query.limit}&after=${page.nextAfter}${query.status === undefined ? '' : `&status=${query.status}`}>; rel="next"`;
    const entry = { version: store.version, body: Buffer.from(page.body), link };
    if (pages.size >= 512) pages.clear();
    pages.set(search, entry);
    return entry;
  };

  const serve = async (exchange: Exchange): Promise<void> => {
    const { request, headers } = exchange;
    const { pathname, search } = splitTarget(request.url ?? '/');
    const route = matchRoute(pathname);
    if (route?.petIdSegment !== undefined) for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) headers.push(name, value);

    const authenticated = authenticate(request.rawHeaders, keys);
    const key = authenticated instanceof SandboxHttpError ? undefined : authenticated;
    exchange.plan = key?.plan;
    const subject = key ? key.key : addressSubject(request.socket);
    const checked = rateLimits.check(subject, key ?? ADDRESS_LIMITS, now());
    // Awaited only when a promise: the hot path saves a turn of the event loop.
    const decision = checked instanceof Promise ? await checked : checked;
    headers.push(...rateLimitHeaders(decision));
    if (!decision.allowed) throw rateLimitRefusal(decision, key);
    if (!key) throw authenticated;

    if (!route) {
      throw new SandboxHttpError('not_found', `no such path: ${pathname}; the sandbox serves ${BASE_PATH}/pets and ${BASE_PATH}/pets/{petId}, the operations the specification shows`);
    }
    const method = request.method ?? 'GET';
    const allowed = route.methods.join(', ');
    if (!route.methods.includes(method)) {
      throw new SandboxHttpError('method_not_allowed', `${method} is not allowed on ${pathname}; allowed: ${allowed}`, { Allow: allowed });
    }

    if (route.petIdSegment !== undefined) {
      const id = parsePetId(route.petIdSegment);
      store.refresh();
      const pet = store.get(id);
      if (pet === undefined) throw new SandboxHttpError('pet_not_found', `no animal has id ${id}`);
      return send(exchange, 200, Buffer.from(pet));
    }
    if (method === 'GET') {
      const page = listPage(search);
      if (page.link !== undefined) headers.push('Link', page.link);
      return send(exchange, 200, page.body);
    }
    checkJsonContentType(request);
    const pet = await store.add(parseNewPet(await readJsonBody(request, exchange.response, exchange.expectContinue)));
    headers.push('Location', `${BASE_PATH}/pets/${pet.id}`);
    return send(exchange, 201, Buffer.from(pet.json));
  };

  const handle = (request: IncomingMessage, response: ServerResponse, expectContinue: boolean): void => {
    const exchange: Exchange = { request, response, headers: [], expectContinue };
    if (log) {
      const started = performance.now();
      response.on('close', () => {
        const duration = Math.round(performance.now() - started);
        const status = response.headersSent ? String(response.statusCode) : 'aborted';
        log(`${request.method} ${request.url} ${status} ${exchange.plan ?? '-'} ${duration}ms`);
      });
    }
    serve(exchange).catch((error: unknown) => {
      if (response.headersSent || response.destroyed) {
        response.destroy();
        return;
      }
      if (error instanceof SandboxHttpError) return sendError(exchange, error);
      const { code, file } = error as { code?: string; file?: string };
      // The data file's or the counts' lock, held by another process for too long.
      if (code === 'ELOCKED') {
        return sendError(exchange, new SandboxHttpError('service_unavailable', `${file} is locked by another process`, { 'Retry-After': '1' }));
      }
      // One line, as every error petctl shows: no stack trace.
      log?.(`error: ${error instanceof Error ? error.message : String(error)}`);
      const message = error instanceof SandboxDataFileError ? error.message : 'internal error';
      sendError(exchange, new SandboxHttpError('internal_error', message));
    });
  };

  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      // How often node looks for requests past those timeouts (its default, 30 s, would let them run far over).
      connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs ?? 10_000),
      keepAliveTimeout: 5000,
    },
    (request, response) => handle(request, response, false),
  );
  // Handling `Expect: 100-continue` ourselves lets an oversized upload be refused before it is sent.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => handle(request, response, true));
  // What node's parser refuses is a request without a valid key: counted against the client's address.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    void answerClientError(error, socket, async () => rateLimits.check(addressSubject(socket), ADDRESS_LIMITS, now()));
  });
  return server;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? DEFAULT_HOST;
  const policy = rateLimitPolicy(options);
  const store = options.dataFile === undefined ? createMemoryStore(options.maxAnimals) : await openFileStore(options.dataFile, options.maxAnimals);
  const rateLimits = store.dataFile === undefined ? memoryRateLimits(policy) : await openFileRateLimits(store.dataFile, policy, options.now);
  const server = createSandboxServer(store, rateLimits, options);
  const close = async (): Promise<void> => {
    await closeServer(server);
    await store.close();
    await rateLimits.close();
  };
  try {
    await once(server.listen(options.port ?? DEFAULT_PORT, host), 'listening');
  } catch (error) {
    await Promise.all([store.close(), rateLimits.close()]).catch(() => {});
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  return { baseUrl: `http://${hostInUrl}:${port}${BASE_PATH}`, port, keys: sandboxKeys(options), server, close };
}

async function closeServer(server: Server): Promise<void> {
  // In-flight requests get a second to finish; then every connection is cut.
  const deadline = setTimeout(() => server.closeAllConnections(), 1000).unref();
  const closing = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  server.closeIdleConnections();
  await closing.finally(() => clearTimeout(deadline));
}

function addressSubject(socket: Socket): string {
  return `address:${socket.remoteAddress ?? 'unknown'}`;
}

/** The request target's path and query, also of an absolute-form target (`http://host/path`). */
function splitTarget(target: string): { pathname: string; search: string } {
  let pathAndQuery = target;
  if (!target.startsWith('/')) {
    try {
      const url = new URL(target);
      pathAndQuery = url.pathname + url.search;
    } catch {
      return { pathname: target, search: '' };
    }
  }
  const [pathname = '', ...query] = pathAndQuery.split('?');
  return { pathname, search: query.join('?') };
}

/** The paths the sandbox serves, with the methods each allows (others: 405 with Allow) and a pet's id segment, still percent-encoded. */
function matchRoute(pathname: string): { methods: readonly string[]; petIdSegment?: string } | undefined {
  if (pathname === `${BASE_PATH}/pets`) return { methods: ['GET', 'POST'] };
  const petIdSegment = /^\/v1\/pets\/([^/]+)$/.exec(pathname)?.[1];
  return petIdSegment === undefined ? undefined : { methods: ['GET'], petIdSegment };
}
