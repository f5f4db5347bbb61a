import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { rateLimitHeaders, rateLimitRefusal } from './answers';
import { SandboxHttpError, type SandboxErrorCode } from './errors';
import type { RateLimitDecision } from './rate-limiter';

/**
 * What node's HTTP parser refuses (malformed, headers too large, too slow) it
 * would answer with a bare status line; the specification wants the Error body
 * and the X-RateLimit-* headers, so the sandbox answers itself and closes.
 */

const PARSER_REFUSALS: Readonly<Record<string, readonly [SandboxErrorCode, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'the request did not arrive in time; the connection is closed'],
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'the request headers are too large; the connection is closed'],
};
const MALFORMED: readonly [SandboxErrorCode, string] = ['invalid_request', 'the request is not valid HTTP/1.1; the connection is closed'];

/** The client address's rate-limit decision: its X-RateLimit-* headers go with the answer, or its 429 instead. */
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
