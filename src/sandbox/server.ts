/**
 * The embedded Pet Adoption Service: the specification's three operations on
 * plain node:http, under the base path /v1.
 *
 *   GET  /v1/pets            listPets   200 Pets          (limit 1..100, default 20; status)
 *   POST /v1/pets            createPet  201 Pet + Location: /v1/pets/{id}
 *   GET  /v1/pets/{petId}    getPet     200 Pet           (deprecated)
 *
 * Order of checks for every request: authentication → rate limit (429;
 * counts the request) → the authentication's refusal (401, or 400
 * invalid_request for several Authorization headers or credentials) → path
 * (404) → method (405) → parameters, media type, size and body (400, 413,
 * 415) → the store. A request with a valid key counts against that key; one
 * without counts against its client address, with the Free plan's limits. So
 * every response carries the X-RateLimit-* headers, 401s included, and an
 * address that floods with bad keys gets 429 and is banned like a key (see
 * rate-limiter.ts for the window and ban rules).
 *
 * Paging (the specification shows none): when more animals match than a page
 * holds, GET /v1/pets answers with
 *   Link: </v1/pets?limit=N&after=<last id>[&status=…]>; rel="next"
 * and `after` selects the animals with a greater id.
 *
 * Slow clients: a request's headers must arrive within `headersTimeoutMs`
 * (default 10 s) and the whole request, body included, within
 * `requestTimeoutMs` (default 30 s); otherwise the answer is 408 and the
 * connection is closed. Idle keep-alive connections close after 5 s.
 *
 * Error codes: errors.ts. Headers every answer carries: answers.ts. Paths and
 * methods: routes.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

import { ADDRESS_LIMITS, type Exchange, GET_PET_DEPRECATION_HEADERS, rateLimitHeaders, rateLimitRefusal, send, sendError } from './answers';
import { authenticate } from './auth';
import { answerClientError } from './client-errors';
import { checkJsonContentType, readJsonBody } from './body';
import { SandboxHttpError } from './errors';
import { sandboxKeys, type SandboxKey, type SandboxKeyOptions } from './keys';
import { memoryRateLimits, openFileRateLimits, type RateLimitBook } from './rate-limit-book';
import { rateLimitPolicy, type RateLimitPolicyOptions } from './rate-limiter';
import { ALLOWED_METHODS, BASE_PATH, matchRoute, splitTarget } from './routes';
import { createMemoryStore, openFileStore, SandboxDataFileError, StoreBusyError, type PetStore } from './store';
import { parseListQuery, parseNewPet, parsePetId } from './validation';
import { DEFAULT_HOST, DEFAULT_PORT } from './defaults';

export { BASE_PATH } from './routes';
export { DEFAULT_HOST, DEFAULT_PORT } from './defaults';
/** Headers must arrive within this long, or the answer is 408 and the connection is closed. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** The whole request, body included, must arrive within this long. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface SandboxServerOptions extends RateLimitPolicyOptions, SandboxKeyOptions {
  /** Where animals live. Default: a fresh in-memory store. */
  store?: PetStore;
  /** Where rate-limit counts live. Default: in memory. */
  rateLimits?: RateLimitBook;
  /** One line per request: method, target, status, plan, duration. Never the key. */
  log?: (line: string) => void;
  /** The rate limiter's clock (epoch ms). Default Date.now. */
  now?: () => number;
  /** Default 10 s (DEFAULT_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs?: number;
  /** Default 30 s (DEFAULT_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
}

export interface SandboxOptions extends Omit<SandboxServerOptions, 'store' | 'rateLimits'> {
  /** Interface to bind; default 127.0.0.1 (loopback only). */
  host?: string;
  /** Port; default 4010; 0 picks a free one. */
  port?: number;
  /** Data file; absent = in memory. Created with the sample animals when missing. */
  dataFile?: string;
  /** Share rate-limit counts through the limits file beside the data file (default true when file-backed). */
  persistRateLimits?: boolean;
  /** The most animals kept; a create beyond it is 507 (default DEFAULT_MAX_ANIMALS, 100,000). */
  maxAnimals?: number;
}

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:4010/v1 (IPv6 hosts in brackets). */
  baseUrl: string;
  port: number;
  host: string;
  /** The API keys with their quotas (Enterprise as configured). */
  keys: readonly SandboxKey[];
  /** The absolute data file path, when file-backed. */
  dataFile: string | undefined;
  server: Server;
  /** Stops listening, closes connections (all of them after 1 s), waits for adds and writes the rate-limit counts. */
  close(): Promise<void>;
}

/** A page of GET /v1/pets, ready to send; kept per query string until the animals change. */
interface CachedPage {
  version: number;
  body: Buffer;
  link: string | undefined;
}

const PAGE_CACHE_ENTRIES = 512;

/** A node:http server answering the sandbox's interface. It does not listen yet. */
export function createSandboxServer(options: SandboxServerOptions = {}): Server {
  const store = options.store ?? createMemoryStore();
  const keys = sandboxKeys(options);
  const policy = rateLimitPolicy(options);
  const rateLimits = options.rateLimits ?? memoryRateLimits(policy);
  const now = options.now ?? Date.now;
  const log = options.log;
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
    if (pages.size >= PAGE_CACHE_ENTRIES) pages.clear();
    pages.set(search, entry);
    return entry;
  };

  const serve = async (exchange: Exchange): Promise<void> => {
    const { request, headers } = exchange;
    const { pathname, search } = splitTarget(request.url ?? '/');
    const route = matchRoute(pathname);
    if (route?.name === 'pet') for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) headers.push(name, value);

    let key: SandboxKey | undefined;
    let refusal: SandboxHttpError | undefined;
    try {
      key = authenticate(request.rawHeaders, keys);
    } catch (error) {
      if (!(error instanceof SandboxHttpError)) throw error;
      refusal = error;
    }
    exchange.plan = key?.plan;
    const subject = key ? key.key : addressSubject(request.socket);
    const checked = rateLimits.check(subject, key ?? ADDRESS_LIMITS, now());
    const decision = checked instanceof Promise ? await checked : checked;
    headers.push(...rateLimitHeaders(decision));
    if (!decision.allowed) throw rateLimitRefusal(decision, key);
    if (refusal) throw refusal;

    if (!route) {
      // e.g. /v1/store/orders: the specification names it but shows no operations, so the sandbox invents none.
      throw new SandboxHttpError('not_found', `no such path: ${pathname}; the sandbox serves ${BASE_PATH}/pets and ${BASE_PATH}/pets/{petId}, the operations the specification shows`);
    }
    const method = request.method ?? 'GET';
    const allowed = ALLOWED_METHODS[route.name];
    if (!allowed.includes(method)) {
      throw new SandboxHttpError('method_not_allowed', `${method} is not allowed on ${pathname}; allowed: ${allowed.join(', ')}`, {
        Allow: allowed.join(', '),
      });
    }

    if (route.name === 'pet') {
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
    const newPet = parseNewPet(await readJsonBody(request, exchange.response, exchange.expectContinue));
    const pet = await store.add(newPet);
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
      if (error instanceof StoreBusyError) {
        return sendError(exchange, new SandboxHttpError('service_unavailable', error.message, { 'Retry-After': '1' }));
      }
      if ((error as NodeJS.ErrnoException | undefined)?.code === 'ELOCKED') {
        // The rate-limit counts' lock, held by another process for too long.
        return sendError(exchange, new SandboxHttpError('service_unavailable', 'the rate-limit counts are locked by another process', { 'Retry-After': '1' }));
      }
      log?.(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      const message = error instanceof SandboxDataFileError ? error.message : 'internal error';
      sendError(exchange, new SandboxHttpError('internal_error', message));
    });
  };

  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
      requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      // How often node looks for requests past those timeouts (its default, 30 s, would let them run far over).
      connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS),
      keepAliveTimeout: 5000,
    },
    (request, response) => handle(request, response, false),
  );
  // Handling `Expect: 100-continue` ourselves lets an oversized upload be refused before it is sent.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => handle(request, response, true));
  // What node's parser refuses is a request without a valid key: counted against the client's address.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    void answerClientError(error, socket, async () => {
      const checked = rateLimits.check(addressSubject(socket), ADDRESS_LIMITS, now());
      const decision = checked instanceof Promise ? await checked : checked;
      return { headers: rateLimitHeaders(decision), ...(decision.allowed ? {} : { refusal: rateLimitRefusal(decision, undefined) }) };
    });
  });
  return server;
}

/** Opens the store, creates the server and listens. Rejects when the data file is unusable or the port is taken. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? DEFAULT_HOST;
  const policy = rateLimitPolicy(options);
  let store: PetStore;
  let rateLimits: RateLimitBook;
  if (options.dataFile === undefined) {
    store = createMemoryStore({ maxAnimals: options.maxAnimals });
    rateLimits = memoryRateLimits(policy);
  } else {
    const persist = options.persistRateLimits ?? true;
    store = await openFileStore(options.dataFile, options.maxAnimals);
    const file = store.dataFile as string;
    rateLimits = persist ? await openFileRateLimits(file, policy, { now: options.now }) : memoryRateLimits(policy);
  }
  const server = createSandboxServer({ ...options, store, rateLimits });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? DEFAULT_PORT, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await rateLimits.close().catch(() => {});
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  return {
    baseUrl: `http://${hostInUrl}:${port}${BASE_PATH}`,
    port,
    host,
    keys: sandboxKeys(options),
    dataFile: store.dataFile,
    server,
    close: async () => {
      await closeServer(server);
      await store.close();
      await rateLimits.close();
    },
  };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    // In-flight requests get a second to finish; then every connection is cut.
    const deadline = setTimeout(() => server.closeAllConnections(), 1000);
    deadline.unref();
    server.close((error) => {
      clearTimeout(deadline);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}

/** Requests without a valid key are counted per client address. */
function addressSubject(socket: Socket): string {
  return `address:${socket.remoteAddress ?? 'unknown'}`;
}
