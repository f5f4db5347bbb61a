import { isLoopbackHost } from '../config/base-url';
import { NetworkError } from '../errors';
import { DEFAULT_PORT as SANDBOX_DEFAULT_PORT } from '../sandbox/defaults';
import { certificateProblem } from './transport';

/**
 * What a failed request (no HTTP answer) means: whether it may have reached
 * the server, whether trying again can help, and how to say so.
 */

/** Failures that happen before a connection exists: the request cannot have reached the server. */
export const NOT_CONNECTED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** OpenSSL's verification failures: the TLS handshake stopped before any request (or key) went out. */
export const TLS_TRUST_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const KNOWN: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'the connection closed before the answer was complete',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the answer was cut short',
  UND_ERR_RES_EXCEEDED_MAX_SIZE: 'the answer was too large',
};

/** A connection failure's code in words ('connection refused'), for any client petctl runs (HTTP, Redis). */
export function connectionErrorText(code: string | undefined): string | undefined {
  return code === undefined ? undefined : KNOWN[code];
}

/** The system or undici error code, on the error or its cause. */
export function errorCode(error: unknown): string | undefined {
  const err = error as { code?: string; cause?: { code?: string } } | undefined;
  return err?.code ?? err?.cause?.code;
}

export function describeNetworkError(error: unknown): string {
  const err = error as { message?: string };
  const code = errorCode(error);
  if (code && TLS_TRUST_CODES.has(code)) {
    return `the server's TLS certificate is not trusted (${certificateProblem(err)}); nothing was sent. For a private CA, set NODE_EXTRA_CA_CERTS to its certificate file`;
  }
  return connectionErrorText(code) ?? err?.message ?? String(error);
}

/** host:port of a URL, the port spelled out even when it is the scheme's default. */
function hostAndPort(url: URL): { host: string; port: number } {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { host: url.hostname, port };
}

/**
 * The NetworkError for a request that got no HTTP answer. A refused
 * connection to this machine's loopback is final (`retryable: false`):
 * nothing listens there, and waiting a few seconds will not start a server.
 */
export function networkFailure(error: unknown, request: { method: string; url: string; timeoutMs: number; timedOut: boolean }): NetworkError {
  const code = errorCode(error) ?? '';
  const sent = !NOT_CONNECTED_CODES.has(code) && !TLS_TRUST_CODES.has(code);
  const target = new URL(request.url);
  if (request.timedOut || /TIMEOUT/.test(code)) {
    return new NetworkError(`no answer from ${target.host} within ${request.timeoutMs / 1000}s (--timeout)`, { code: 'timeout', sent, cause: error });
  }
  const { host, port } = hostAndPort(target);
  if (code === 'ECONNREFUSED' && isLoopbackHost(host)) {
    return new NetworkError(`${request.method} ${request.url} failed: connection refused: nothing is listening on ${target.hostname}:${port}`, {
      sent: false,
      retryable: false,
      cause: error,
      hint: port === SANDBOX_DEFAULT_PORT ? 'is the sandbox running? start it with petctl sandbox' : undefined,
    });
  }
  return new NetworkError(`${request.method} ${request.url} failed: ${describeNetworkError(error)}`, { sent, cause: error });
}
