import type { IncomingMessage, ServerResponse } from 'node:http';
import { stringifyJson } from '../schemas/json';
import { GET_PET_SUNSET } from '../schemas/pet';
import { DRAIN_LIMIT_BYTES } from './body';
import { SANDBOX_ERROR_CODES, SandboxHttpError, type SandboxErrorCode } from './errors';
import { SANDBOX_KEYS, type SandboxKey } from './keys';
import type { RateLimitDecision } from './rate-limiter';
import { BASE_PATH } from './routes';

/**
 * How the sandbox answers: the headers, the rate limit's refusals, an Error body.
 *
 *   Every response: Date, Content-Type: application/json; charset=utf-8, Content-Length.
 *   Every response: X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (Unix seconds),
 *     of the key, or of the client address when there is no valid key.
 *   429 and 503: Retry-After (whole seconds, at least 1).
 *   401: WWW-Authenticate: Bearer realm="petctl-sandbox"[, error="invalid_request"|"invalid_token"].
 *   405: Allow.  201: Location.  413: Connection: close.
 *   200 from GET /v1/pets when more animals match: Link rel="next" (see Paging).
 *   Every response on /v1/pets/{petId} (200, 404, every error): the deprecation of getPet,
 *     Deprecation: @1735689600           RFC 9745: deprecated since 2025-01-01T00:00:00Z
 *     Sunset: Thu, 05 Dec 2030 00:00:00 GMT   RFC 8594: the specification's removal date
 *     Link: </v1/pets>; rel="successor-version"   the replacement (listPets with status), RFC 5829
 */

/** getPet was deprecated on 2025-01-01T00:00:00Z (RFC 9745 structured-field date). */
export const GET_PET_DEPRECATED_AT = Date.UTC(2025, 0, 1) / 1000;

export const GET_PET_DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  Deprecation: `@${GET_PET_DEPRECATED_AT}`,
  Sunset: new Date(`${GET_PET_SUNSET}T00:00:00Z`).toUTCString(),
  Link: `<${BASE_PATH}/pets>; rel="successor-version"`,
};

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Requests without a valid key are limited per client address, as the Free plan is. */
export const ADDRESS_LIMITS = SANDBOX_KEYS.find((key) => key.plan === 'free') as SandboxKey;

export interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  /** Headers every response to this request carries (rate limit, deprecation), as name, value, name, value… */
  headers: string[];
  plan?: string;
  expectContinue: boolean;
}

export function rateLimitHeaders(decision: RateLimitDecision): string[] {
  return [
    'X-RateLimit-Limit',
    String(decision.limit),
    'X-RateLimit-Remaining',
    String(decision.remaining),
    'X-RateLimit-Reset',
    String(decision.resetEpochSeconds),
  ];
}

export function rateLimitRefusal(decision: RateLimitDecision, key: SandboxKey | undefined): SandboxHttpError {
  const retryAfter = { 'Retry-After': String(decision.retryAfterSeconds ?? 1) };
  const who = key ? 'the API key is' : 'this client address (sending without a valid API key) is';
  if (decision.banned) {
    return new SandboxHttpError(
      'key_banned',
      `${who} temporarily banned for sending requests while rate limited; retry after ${decision.retryAfterSeconds} s`,
      retryAfter,
    );
  }
  const plan = key ?? ADDRESS_LIMITS;
  const whose = key ? `${key.plan} plan` : 'requests without a valid API key, per address, Free plan';
  return new SandboxHttpError(
    'rate_limited',
    `rate limit exceeded (${whose}: ${plan.perMinute} per minute, ${plan.perDay} per day); retry after ${decision.retryAfterSeconds} s`,
    retryAfter,
  );
}

export function send(exchange: Exchange, status: number, body: Buffer, extraHeaders: Readonly<Record<string, string>> = {}): void {
  const headers = exchange.headers;
  for (const name in extraHeaders) headers.push(name, extraHeaders[name] as string);
  headers.push('Content-Type', JSON_CONTENT_TYPE, 'Content-Length', String(body.length));
  exchange.response.writeHead(status, headers);
  exchange.response.end(body);
}

export function sendError(exchange: Exchange, error: SandboxHttpError): void {
  const code: SandboxErrorCode = error.code;
  const status = SANDBOX_ERROR_CODES[code];
  const headers = { ...error.headers };
  // Node reads and discards an unread body after the response to keep the
  // connection alive. Close the connection instead when that body may be large,
  // or when the client awaits 100 Continue and may never send it (RFC 9110 §10.1.1).
  const { request } = exchange;
  if (!request.complete && (exchange.expectContinue || mayHaveLargeBody(request))) headers.Connection = 'close';
  send(exchange, status, Buffer.from(stringifyJson({ code, message: error.message, status })), headers);
}

function mayHaveLargeBody(request: IncomingMessage): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  return Number(request.headers['content-length'] ?? 0) > DRAIN_LIMIT_BYTES;
}
