import type { IncomingMessage, ServerResponse } from 'node:http';
import { stringifyJson } from '../schemas/json';
import { GET_PET_SUNSET } from '../schemas/pet';
import { DRAIN_LIMIT_BYTES } from './body';
import { SandboxHttpError } from './errors';
import { SANDBOX_KEYS, type SandboxKey } from './keys';
import type { RateLimitDecision } from './rate-limiter';
import { BASE_PATH } from './routes';

/**
 * How the sandbox answers: the headers every answer carries (docs/sandbox.md,
 * "Other headers"), the rate limit's refusals, an Error body.
 */

/** getPet is deprecated (RFC 9745, since 2025-01-01), with the specification's removal date (RFC 8594) and its successor. */
export const GET_PET_DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  Deprecation: `@${Date.UTC(2025, 0, 1) / 1000}`,
  Sunset: new Date(`${GET_PET_SUNSET}T00:00:00Z`).toUTCString(),
  Link: `<${BASE_PATH}/pets>; rel="successor-version"`,
};

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Requests without a valid key are limited per client address, as the Free plan (the first key) is. */
export const ADDRESS_LIMITS = SANDBOX_KEYS[0] as SandboxKey;

export interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  /** Headers every response to this request carries (rate limit, deprecation), as name, value, name, value… */
  headers: string[];
  plan?: string;
  expectContinue: boolean;
}

export function rateLimitHeaders({ limit, remaining, resetEpochSeconds }: RateLimitDecision): string[] {
  return ['X-RateLimit-Limit', String(limit), 'X-RateLimit-Remaining', String(remaining), 'X-RateLimit-Reset', String(resetEpochSeconds)];
}

export function rateLimitRefusal(decision: RateLimitDecision, key: SandboxKey | undefined): SandboxHttpError {
  const retryAfter = { 'Retry-After': String(decision.retryAfterSeconds ?? 1) };
  const retry = `retry after ${decision.retryAfterSeconds} s`;
  if (decision.banned) {
    const who = key ? 'the API key is' : 'this client address (sending without a valid API key) is';
    return new SandboxHttpError('key_banned', `${who} temporarily banned for sending requests while rate limited; ${retry}`, retryAfter);
  }
  const { perMinute, perDay } = key ?? ADDRESS_LIMITS;
  const whose = key ? `${key.plan} plan` : 'requests without a valid API key, per address, Free plan';
  return new SandboxHttpError('rate_limited', `rate limit exceeded (${whose}: ${perMinute} per minute, ${perDay} per day); ${retry}`, retryAfter);
}

export function send(exchange: Exchange, status: number, body: Buffer, extraHeaders: Readonly<Record<string, string>> = {}): void {
  const headers = exchange.headers;
  for (const name in extraHeaders) headers.push(name, extraHeaders[name] as string);
  headers.push('Content-Type', JSON_CONTENT_TYPE, 'Content-Length', String(body.length));
  exchange.response.writeHead(status, headers);
  exchange.response.end(body);
}

export function sendError(exchange: Exchange, { code, message, status, headers: errorHeaders }: SandboxHttpError): void {
  const headers = { ...errorHeaders };
  // Node reads and discards an unread body after the response to keep the
  // connection alive. Close the connection instead when that body may be large,
  // or when the client awaits 100 Continue and may never send it (RFC 9110 §10.1.1).
  const { request } = exchange;
  if (!request.complete && (exchange.expectContinue || mayHaveLargeBody(request))) headers.Connection = 'close';
  send(exchange, status, Buffer.from(stringifyJson({ code, message, status })), headers);
}

function mayHaveLargeBody(request: IncomingMessage): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > DRAIN_LIMIT_BYTES;
}
