import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { stringifyJson } from '../schemas/json';
import { GET_PET_SUNSET } from '../schemas/constants';
import { BASE_PATH } from './defaults';
import { SandboxHttpError, type SandboxErrorCode } from './errors';
import { DRAIN_LIMIT_BYTES } from './validation';
import { type SandboxKey, sandboxKeys } from './keys';
import type { RateLimitDecision } from './rate-limiter';

/** getPet is deprecated (RFC 9745, since 2025-01-01), with the specification's removal date (RFC 8594) and its successor. */
export const GET_PET_DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  Deprecation: `@${Date.UTC(2025, 0, 1) / 1000}`,
  Sunset: new Date(`${GET_PET_SUNSET}T00:00:00Z`).toUTCString(),
  Link: `<${BASE_PATH}/pets>; rel="successor-version"`,
};

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Requests without a valid key are limited per client address, as the Free plan is. */
export const ADDRESS_LIMITS = sandboxKeys()[0] as SandboxKey;

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

export function send(exchange: Exchange, status: number, body: Buffer): void {
  exchange.headers.push('Content-Type', JSON_CONTENT_TYPE, 'Content-Length', String(body.length));
  exchange.response.writeHead(status, exchange.headers);
  exchange.response.end(body);
}

export function sendError(exchange: Exchange, { code, message, status, headers: errorHeaders }: SandboxHttpError): void {
  const headers = { ...errorHeaders };
  // Node would read and discard an unread body to keep the connection: not one that may be large, or that a client
  // awaiting 100 Continue may never send (RFC 9110 §10.1.1).
  const { request } = exchange;
  if (!request.complete && (exchange.expectContinue || mayHaveLargeBody(request))) headers.Connection = 'close';
  exchange.headers.push(...Object.entries(headers).flat());
  send(exchange, status, Buffer.from(stringifyJson({ code, message, status })));
}

function mayHaveLargeBody(request: IncomingMessage): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > DRAIN_LIMIT_BYTES;
}

const PARSER_REFUSALS: Readonly<Record<string, readonly [SandboxErrorCode, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'the request did not arrive in time; the connection is closed'],
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'the request headers are too large; the connection is closed'],
};
const MALFORMED: readonly [SandboxErrorCode, string] = ['invalid_request', 'the request is not valid HTTP/1.1; the connection is closed'];

/**
 * node's HTTP parser would answer what it refuses (malformed, headers too large, too slow) with a bare status line; the
 * specification wants the Error body and the X-RateLimit-* headers (or the address's 429): the sandbox answers and closes.
 */
export async function answerClientError(error: NodeJS.ErrnoException, socket: Socket, decide: () => Promise<RateLimitDecision>): Promise<void> {
  // A reset connection, or one already answered in part, has no room for an answer.
  if (error.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) return void socket.destroy();
  const [code, message] = PARSER_REFUSALS[error.code ?? ''] ?? MALFORMED;
  const decision = await decide().catch(() => undefined);
  if (decision === undefined) return void socket.destroy();
  const refusal = decision.allowed ? new SandboxHttpError(code, message) : rateLimitRefusal(decision, undefined);
  const body = JSON.stringify({ code: refusal.code, message: refusal.message, status: refusal.status });
  const headers = [...rateLimitHeaders(decision), ...Object.entries(refusal.headers).flat()];
  const lines = [`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}`, `Date: ${new Date().toUTCString()}`, 'Connection: close'];
  lines.push('Content-Type: application/json; charset=utf-8', `Content-Length: ${Buffer.byteLength(body)}`);
  for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
  if (socket.destroyed) return;
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}
