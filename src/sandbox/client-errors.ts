import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { SandboxHttpError, type SandboxErrorCode } from './errors';

/**
 * Requests that node's HTTP parser refuses before the sandbox sees them: a
 * malformed request, headers too large, a client too slow to send its request.
 * Node would answer these with a bare status line; the specification says every
 * error response carries the Error body and every response the X-RateLimit-*
 * headers, so the sandbox answers them itself, then closes the connection.
 */

const PARSER_REFUSALS: Readonly<Record<string, readonly [SandboxErrorCode, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'the request did not arrive in time; the connection is closed'],
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'the request headers are too large; the connection is closed'],
};
const MALFORMED: readonly [SandboxErrorCode, string] = ['invalid_request', 'the request is not valid HTTP/1.1; the connection is closed'];

/** What to answer beside the parser's refusal: the client address's X-RateLimit-* headers (name, value, …), or its 429 instead. */
export type AddressVerdict = () => Promise<{ headers: string[]; refusal?: SandboxHttpError }>;

export async function answerClientError(error: NodeJS.ErrnoException, socket: Socket, verdict: AddressVerdict): Promise<void> {
  // A reset connection, or one already answered in part, has no room for an answer.
  if (error.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  const [code, message] = PARSER_REFUSALS[error.code ?? ''] ?? MALFORMED;
  let answer: { headers: string[]; refusal?: SandboxHttpError };
  try {
    answer = await verdict();
  } catch {
    socket.destroy();
    return;
  }
  const refusal = answer.refusal ?? new SandboxHttpError(code, message);
  const body = JSON.stringify({ code: refusal.code, message: refusal.message, status: refusal.status });
  const headers = [...answer.headers, ...Object.entries(refusal.headers).flat()];
  const lines = [`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}`, `Date: ${new Date().toUTCString()}`, 'Connection: close'];
  lines.push('Content-Type: application/json; charset=utf-8');
  lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
  if (socket.destroyed) return;
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}
