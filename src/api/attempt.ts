import type { Dispatcher } from 'undici';
import apiRequest from 'undici/lib/api/api-request.js';
import { InterruptedError, InvalidResponseError, NetworkError } from '../errors';
import { type Answer, headerReader } from './answer';
import { MAX_RESPONSE_BYTES, certificateProblem } from './transport';

/** Failures that happen before a connection exists: the request cannot have reached the server. */
const NOT_CONNECTED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** OpenSSL's verification failures: the TLS handshake stopped before any request (or key) went out. */
const TLS_TRUST_CODES = new Set([
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

const formatSeconds = (ms: number) => `${Math.round(ms) / 1000}s`;

/** A connection failure's code in words, for any client petctl runs (HTTP, Redis). */
export function connectionErrorText(code: string | undefined): string | undefined {
  return code === undefined ? undefined : KNOWN[code];
}

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

export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

export interface FailureTarget {
  /** The base URL is on loopback: a refused connection is final (waiting starts no server), with the session's `hint`. */
  loopback?: { hint?: string };
}

/** A request that got no HTTP answer: whether it may have reached the server, and may be retried. */
export function networkFailure(
  error: unknown,
  request: { method: string; url: string; timeoutMs: number; timedOut: boolean; cutShort?: boolean },
  target: FailureTarget = {},
): NetworkError {
  const code = errorCode(error) ?? '';
  const url = new URL(request.url);
  const failed = `${request.method} ${request.url} failed: `;
  // Nothing was sent, and trying again cannot help.
  const final = (why: string, hint?: string) => new NetworkError(failed + why, { sent: false, retryable: false, cause: error, hint });
  // A name that does not resolve now will not start to within the few seconds a retry waits.
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return final(`cannot resolve the host ${url.hostname}`);
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' && url.protocol === 'https:') {
    return final(`the server at ${url.hostname}:${portOf(url)} does not speak TLS; is the base URL http://?`);
  }
  const tunnel = proxyRefusal(error);
  if (tunnel !== undefined) {
    const hint = tunnel === 407 ? PROXY_CREDENTIALS_HINT : 'check HTTPS_PROXY and NO_PROXY';
    const why = `the proxy refused to connect to ${url.host} (HTTP ${tunnel}); nothing was sent`;
    return new NetworkError(failed + why, { sent: false, retryable: tunnel >= 500, cause: error, hint });
  }
  const sent = !NOT_CONNECTED_CODES.has(code) && !TLS_TRUST_CODES.has(code);
  if (request.timedOut || /TIMEOUT/.test(code)) {
    const limit = request.cutShort ? 'what was left of the request\'s time' : '--timeout';
    return new NetworkError(`no answer from ${url.host} within ${formatSeconds(request.timeoutMs)} (${limit})`, { code: 'timeout', sent, cause: error });
  }
  if (code === 'ECONNREFUSED' && target.loopback) {
    return final(`connection refused: nothing is listening on ${url.hostname}:${portOf(url)}`, target.loopback.hint);
  }
  return new NetworkError(failed + describeNetworkError(error), { sent, cause: error });
}

const PROXY_CREDENTIALS_HINT =
  'the proxy asks for credentials: put them in its URL, HTTPS_PROXY=http://user:password@proxy:3128';

/** The status a proxy answered CONNECT with, if not 200 (undici's ProxyAgent): nothing reached the service. */
function proxyRefusal(error: unknown): number | undefined {
  const message = (error as Error | undefined)?.message ?? '';
  const refused = /^Proxy response \((\d+)\) !== 200 when HTTP Tunneling/.exec(message);
  return refused ? Number(refused[1]) : undefined;
}

/** A network failure in a few words, for the line that announces its retry: `connection refused`, `no answer within 2s`. */
export function failureReason(error: NetworkError, timeoutMs: number): string {
  if (error.code === 'timeout') return `no answer within ${formatSeconds(timeoutMs)}`;
  return connectionErrorText(errorCode(error.cause)) ?? 'network error';
}

export interface AttemptOptions extends FailureTarget {
  dispatcher: Dispatcher;
  apiKey: string;
  userAgent: string;
  timeoutMs: number;
  signal: AbortSignal;
  monotonic: () => number;
  trace?: (line: string) => void;
}

interface AttemptRequest {
  /** Less than --timeout when that is all the request's bound leaves. */
  timeoutMs: number;
  method: string;
  url: string;
  body: string | Buffer | undefined;
  headers: Record<string, string> | undefined;
  onDispatch?: () => void;
  onHead?: (head: Pick<Answer, 'status' | 'header'>) => void;
}

const TIMEOUT = Symbol('timeout');

/** What -v shows of an answer's head. */
const TRACED_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'];

/** One request on the wire. `onHead` runs synchronously as soon as the status and headers are in, before the body is read. */
export async function attempt(options: AttemptOptions, request: AttemptRequest, onHead: (head: Pick<Answer, 'status' | 'header'>) => void): Promise<Answer> {
  const { trace } = options;
  const { method, url, body } = request;
  const timeoutMs = Math.min(request.timeoutMs, options.timeoutMs);
  const started = options.monotonic();
  trace?.(`> ${method} ${url}`);
  trace?.('> Authorization: Bearer [redacted]');

  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) throw new InterruptedError();
  options.signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(TIMEOUT), timeoutMs);
  let status = 0;
  try {
    const target = new URL(url);
    // undici's request() without loading its index (start-up time), on any dispatcher (a MockAgent in tests).
    const sending = apiRequest.call(options.dispatcher, {
      origin: target.origin,
      path: target.pathname + target.search,
      method: method as Dispatcher.HttpMethod,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...Object.fromEntries(Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value])),
        // After the caller's headers, so that neither can be replaced.
        authorization: `Bearer ${options.apiKey}`,
        'user-agent': options.userAgent,
      },
      body,
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    request.onDispatch?.();
    const response = await sending;
    status = response.statusCode;
    const header = headerReader(response.headers);
    onHead({ status, header });
    request.onHead?.({ status, header });
    if (trace) {
      const limits = TRACED_HEADERS.flatMap((name) => (header(name) === undefined ? [] : [` ${name}=${header(name)}`])).join('');
      trace(`< ${response.statusCode} in ${Math.round(options.monotonic() - started)} ms${limits}`);
    }
    const text = await response.body.text();
    return { status: response.statusCode, text, headers: response.headers, header };
  } catch (error) {
    if (options.signal.aborted) throw new InterruptedError();
    // undici stopped reading at the cap; the same request would get the same flood, so it is an answer, not a fault to retry.
    if (errorCode(error) === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
      throw new InvalidResponseError(`${method} ${url} answered with a body over ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB; petctl stopped reading it`, status);
    }
    const timedOut = controller.signal.aborted && controller.signal.reason === TIMEOUT;
    throw networkFailure(error, { method, url, timeoutMs, timedOut, cutShort: timeoutMs < options.timeoutMs }, options);
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
}
