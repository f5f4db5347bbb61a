/**
 * The embedded Pet Adoption Service: the specification's three operations on
 * plain node:http, under the base path /v1.
 *
 *   GET  /v1/pets            listPets   200 Pets          (limit 1..100, default 20; status)
 *   POST /v1/pets            createPet  201 Pet + Location: /v1/pets/{id}
 *   GET  /v1/pets/{petId}    getPet     200 Pet           (deprecated)
 *
 * Order of checks for every request: authentication (401; an unknown key is
 * not counted) → rate limit (429; counts the request) → path (404) → method
 * (405) → parameters, media type, size and body (400, 413, 415) → the store.
 * So every response to an authenticated key, errors included, carries the
 * X-RateLimit-* headers (see rate-limiter.ts for their meaning and the window
 * and ban rules).
 *
 * Error codes (`code` of the Error body `{code, message, status}`):
 *
 *   status  code                    when
 *   400     invalid_json            body is not valid JSON, or not UTF-8
 *   400     invalid_body            body is empty, or JSON but not an object
 *   400     missing_field           name or categoryId is absent
 *   400     invalid_field           a field has a wrong type or value (empty name,
 *                                   status outside the enum, categoryId not an
 *                                   int64), or the client sent `id`
 *   400     unknown_field           a field other than name, categoryId, status
 *   400     invalid_parameter       limit not an integer 1..100, status outside the
 *                                   enum, a query parameter given twice, petId not an int64
 *   401     unauthorized            Authorization missing, not Bearer, malformed, or unknown key
 *   404     not_found               no such path
 *   404     pet_not_found           no animal has that id
 *   405     method_not_allowed      known path, other method (Allow lists the methods)
 *   413     payload_too_large       body over 64 KiB (65 536 bytes)
 *   415     unsupported_media_type  Content-Type not application/json (charset, if any,
 *                                   must be utf-8), or a Content-Encoding
 *   429     rate_limited            over the per-minute or per-day limit (Retry-After)
 *   429     key_banned              key temporarily banned (Retry-After = rest of the ban)
 *   500     internal_error          unexpected failure (e.g. the data file became unreadable)
 *   503     service_unavailable     the data file stayed locked by another process (Retry-After: 1)
 *
 * Headers.
 *   Every response: Date, Content-Type: application/json; charset=utf-8, Content-Length.
 *   Authenticated key: X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (Unix seconds).
 *   429 and 503: Retry-After (whole seconds, at least 1).
 *   401: WWW-Authenticate: Bearer realm="petctl-sandbox"[, error="invalid_request"|"invalid_token"].
 *   405: Allow.  201: Location.  413: Connection: close.
 *   Every response on /v1/pets/{petId} (200, 404, every error): the deprecation of getPet,
 *     Deprecation: @1735689600           RFC 9745: deprecated since 2025-01-01T00:00:00Z
 *     Sunset: Thu, 05 Dec 2030 00:00:00 GMT   RFC 8594: the specification's removal date
 *     Link: </v1/pets>; rel="successor-version"   the replacement (listPets with status), RFC 5829
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

import { stringifyJson } from '../schemas/json';
import { GET_PET_SUNSET } from '../schemas/pet';
import { authenticate } from './auth';
import { checkJsonContentType, DRAIN_LIMIT_BYTES, readJsonBody } from './body';
import { SANDBOX_ERROR_CODES, SandboxHttpError, type SandboxErrorCode } from './errors';
import { sandboxKeys, type SandboxKey, type SandboxKeyOptions } from './keys';
import { applyRateLimit, rateLimitPolicy, type RateLimitDecision, type RateLimitPolicyOptions } from './rate-limiter';
import { createMemoryStore, openStore, SandboxDataFileError, StoreBusyError, type PetStore } from './store';
import { parseListQuery, parseNewPet, parsePetId } from './validation';

export const BASE_PATH = '/v1';
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4010;

/** getPet was deprecated on 2025-01-01T00:00:00Z (RFC 9745 structured-field date). */
export const GET_PET_DEPRECATED_AT = Date.UTC(2025, 0, 1) / 1000;

const GET_PET_DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  Deprecation: `@${GET_PET_DEPRECATED_AT}`,
  Sunset: new Date(`${GET_PET_SUNSET}T00:00:00Z`).toUTCString(),
  Link: `<${BASE_PATH}/pets>; rel="successor-version"`,
};

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export interface SandboxServerOptions extends RateLimitPolicyOptions, SandboxKeyOptions {
  /** Where animals (and, when file-backed, rate-limit counts) live. Default: a fresh in-memory store. */
  store?: PetStore;
  /** One line per request: method, target, status, plan, duration. Never the key. */
  log?: (line: string) => void;
  /** The rate limiter's clock (epoch ms). Default Date.now. */
  now?: () => number;
}

export interface SandboxOptions extends Omit<SandboxServerOptions, 'store'> {
  /** Interface to bind; default 127.0.0.1 (loopback only). */
  host?: string;
  /** Port; default 4010; 0 picks a free one. */
  port?: number;
  /** Data file; absent = in memory. Created with the sample animals when missing. */
  dataFile?: string;
  /** Keep rate-limit counts in the data file (default true when file-backed). */
  persistRateLimits?: boolean;
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
  /** Stops listening and closes idle keep-alive connections (all connections after 1 s). */
  close(): Promise<void>;
}

type Route = { name: 'pets' } | { name: 'pet'; petIdSegment: string };

const ALLOWED_METHODS: Record<Route['name'], readonly string[]> = {
  pets: ['GET', 'POST'],
  pet: ['GET'],
};

interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  /** Headers every response to this request carries (rate limit, deprecation). */
  headers: Record<string, string>;
  plan?: string;
  expectContinue: boolean;
}

/** A node:http server answering the sandbox's interface. It does not listen yet. */
export function createSandboxServer(options: SandboxServerOptions = {}): Server {
  const store = options.store ?? createMemoryStore();
  const keys = sandboxKeys(options);
  const policy = rateLimitPolicy(options);
  const now = options.now ?? Date.now;
  const log = options.log;

  const serve = async (exchange: Exchange): Promise<void> => {
    const { request, headers } = exchange;
    const { pathname, search } = splitTarget(request.url ?? '/');
    const route = matchRoute(pathname);
    if (route?.name === 'pet') Object.assign(headers, GET_PET_DEPRECATION_HEADERS);

    const key = authenticate(request.headers.authorization, keys);
    exchange.plan = key.plan;
    const decision = await store.updateRateLimits((state) => applyRateLimit(state, key, policy, now()));
    Object.assign(headers, rateLimitHeaders(decision));
    if (!decision.allowed) {
      const retryAfter = { 'Retry-After': String(decision.retryAfterSeconds ?? 1) };
      if (decision.banned) {
        throw new SandboxHttpError(
          'key_banned',
          `the API key is temporarily banned for sending requests while rate limited; retry after ${decision.retryAfterSeconds} s`,
          retryAfter,
        );
      }
      throw new SandboxHttpError(
        'rate_limited',
        `rate limit exceeded (${key.plan} plan: ${key.perMinute} per minute, ${key.perDay} per day); retry after ${decision.retryAfterSeconds} s`,
        retryAfter,
      );
    }

    if (!route) throw new SandboxHttpError('not_found', `no such path: ${pathname}`);
    const method = request.method ?? 'GET';
    const allowed = ALLOWED_METHODS[route.name];
    if (!allowed.includes(method)) {
      throw new SandboxHttpError('method_not_allowed', `${method} is not allowed on ${pathname}; allowed: ${allowed.join(', ')}`, {
        Allow: allowed.join(', '),
      });
    }

    if (route.name === 'pet') {
      const id = parsePetId(route.petIdSegment);
      const pet = await store.get(id);
      if (!pet) throw new SandboxHttpError('pet_not_found', `no animal has id ${id}`);
      return send(exchange, 200, pet);
    }
    if (method === 'GET') {
      const query = parseListQuery(new URLSearchParams(search));
      return send(exchange, 200, await store.list(query));
    }
    checkJsonContentType(request);
    const newPet = parseNewPet(await readJsonBody(request, exchange.response, exchange.expectContinue));
    const pet = await store.add(newPet);
    headers.Location = `${BASE_PATH}/pets/${pet.id}`;
    return send(exchange, 201, pet);
  };

  const handle = (request: IncomingMessage, response: ServerResponse, expectContinue: boolean): void => {
    const started = performance.now();
    const exchange: Exchange = { request, response, headers: {}, expectContinue };
    if (log) {
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
      log?.(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      const message = error instanceof SandboxDataFileError ? error.message : 'internal error';
      sendError(exchange, new SandboxHttpError('internal_error', message));
    });
  };

  const server = createServer({ requestTimeout: 30_000 }, (request, response) => handle(request, response, false));
  // Handling `Expect: 100-continue` ourselves lets an oversized upload be refused before it is sent.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => handle(request, response, true));
  return server;
}

/** Opens the store, creates the server and listens. Rejects when the data file is unusable or the port is taken. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? DEFAULT_HOST;
  const store = await openStore({
    ...(options.dataFile === undefined ? {} : { dataFile: options.dataFile }),
    ...(options.persistRateLimits === undefined ? {} : { persistRateLimits: options.persistRateLimits }),
  });
  const server = createSandboxServer({ ...options, store });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  return {
    baseUrl: `http://${hostInUrl}:${port}${BASE_PATH}`,
    port,
    host,
    keys: sandboxKeys(options),
    dataFile: store.dataFile,
    server,
    close: () => closeServer(server),
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

function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetEpochSeconds),
  };
}

function send(exchange: Exchange, status: number, body: unknown, extraHeaders: Record<string, string> = {}): void {
  const payload = Buffer.from(stringifyJson(body), 'utf8');
  exchange.response.writeHead(status, {
    ...exchange.headers,
    ...extraHeaders,
    'Content-Type': JSON_CONTENT_TYPE,
    'Content-Length': String(payload.length),
  });
  exchange.response.end(payload);
}

function sendError(exchange: Exchange, error: SandboxHttpError): void {
  const code: SandboxErrorCode = error.code;
  const status = SANDBOX_ERROR_CODES[code];
  const headers = { ...error.headers };
  // Node reads and discards an unread body after the response to keep the
  // connection alive. Close the connection instead when that body may be large,
  // or when the client awaits 100 Continue and may never send it (RFC 9110 §10.1.1).
  const { request } = exchange;
  if (!request.complete && (exchange.expectContinue || mayHaveLargeBody(request))) headers.Connection = 'close';
  send(exchange, status, { code, message: error.message, status }, headers);
}

function mayHaveLargeBody(request: IncomingMessage): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  return Number(request.headers['content-length'] ?? 0) > DRAIN_LIMIT_BYTES;
}

/** The request target's path and query; an absolute-form target (`http://host/path`) is reduced to them. */
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
  const queryAt = pathAndQuery.indexOf('?');
  return queryAt === -1
    ? { pathname: pathAndQuery, search: '' }
    : { pathname: pathAndQuery.slice(0, queryAt), search: pathAndQuery.slice(queryAt + 1) };
}

function matchRoute(pathname: string): Route | undefined {
  if (pathname === `${BASE_PATH}/pets`) return { name: 'pets' };
  const match = /^\/v1\/pets\/([^/]+)$/.exec(pathname);
  return match?.[1] === undefined ? undefined : { name: 'pet', petIdSegment: match[1] };
}
