import type { Dispatcher } from 'undici';
import { ApiError, InterruptedError, InvalidResponseError, NetworkError, PetctlError, RateLimitError, RedirectError, UsageError } from '../errors';
import { ErrorBody } from '../schemas/pet';
import { parseJson, stringifyJson } from '../schemas/json';
import type { GateDecision, RateAnswer } from './pacing';
import type { RateLimitGate } from './rate-limit-state';
import { MAX_RESPONSE_BYTES, certificateProblem, sendRequest } from './transport';
import {
  type AttemptOutcome,
  type RateHeaders,
  delayFor,
  parseHttpDate,
  parseRateHeaders,
  parseRetryAfter,
  resetDelayMs,
  shouldRetry,
} from './retry';

/**
 * The HTTP core: one undici dispatcher, the auth and identity headers, the
 * rate-limit gate and the retry loop. Endpoint functions (pets.ts) sit on top
 * and validate bodies; nothing here knows what a Pet is.
 */

export interface HttpClientOptions {
  /** e.g. https://api.example.org/v1 (no trailing slash). */
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  timeoutMs: number;
  retries: number;
  maxWaitMs: number;
  dispatcher: Dispatcher;
  gate: RateLimitGate;
  now: () => number;
  random: () => number;
  /** Waits `ms`, showing why; rejects when `signal` aborts. */
  wait: (ms: number, why: string) => Promise<void>;
  signal: AbortSignal;
  /** The hint for a 401: how to store a working key for this profile. */
  authHint?: string;
  /** --verbose: one line at a time to stderr. The Authorization header never reaches it. */
  trace?: (line: string) => void;
}

export interface ApiRequest {
  /** Any method (`petctl api -X PATCH`); only GET is retried after anything but a 429. */
  method: string;
  /** Relative to the base URL, e.g. /pets */
  path: string;
  /**
   * An absolute URL to send to instead of `path` and `query` (a next-page link,
   * `petctl api https://…`); refused unless on the base URL's origin, since the key goes with it.
   */
  url?: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A body sent byte for byte instead of `body` (`petctl api --input`); content-type defaults to JSON. */
  rawBody?: string | Buffer;
  /** Extra request headers (`petctl api -H`); they cannot replace Authorization or User-Agent. */
  headers?: Record<string, string>;
  /** Keep the answer's text as it came, without parsing it as JSON (`petctl api` prints non-JSON bodies too). */
  rawResponse?: boolean;
  /** Sees every answer whole, errors included (`petctl api -i` shows an error answer's head too). */
  onResponse?: (answer: { status: number; text: string; headers: Record<string, string | string[] | undefined> }) => void;
  /** Sees the headers of every answer, errors included (e.g. Sunset on a deprecated operation). */
  observe?: (header: (name: string) => string | undefined) => void;
  /** Per-request hooks; bulk import uses them to journal and to show waits in its progress bar. */
  hooks?: RequestHooks;
}

export interface RequestHooks {
  /**
   * Awaited on every attempt once the rate-limit gate has let the request go,
   * just before it is written to the wire: a request still waiting in the gate
   * was never sent, one past this point may have been.
   */
  beforeSend?: () => void | Promise<void>;
  /** Every HTTP answer's status, 429s and errors included, with its X-RateLimit-* headers (bulk import's time left). */
  onAnswer?: (status: number, rate: RateHeaders) => void;
  /** Replaces the session's wait (its countdown line) for this request's waits; must reject on Ctrl-C. */
  wait?: (ms: number, why: string) => Promise<void>;
  /**
   * Draw from the budget shared by every process on this machine from the
   * first request (bulk import), rather than only once it runs low (see pacing.ts).
   */
  paced?: boolean;
  /** With `paced`: requests of every window left unused for other commands on the key (`pets add --reserve`). */
  reserve?: number;
}

export interface ApiResponse {
  status: number;
  url: string;
  body: unknown;
  /** The body exactly as received. */
  text: string;
  /** Every header as received, names lower-cased, for `petctl api -i`. */
  headers: Record<string, string | string[] | undefined>;
  rate: RateHeaders;
  header(name: string): string | undefined;
}

type RawResponse = { status: number; text: string; headers: Record<string, string | string[] | undefined>; header(name: string): string | undefined };

const TIMEOUT = Symbol('timeout');

function headerGetter(headers: Record<string, string | string[] | undefined>) {
  return (name: string): string | undefined => {
    const value = headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

function formatWait(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return seconds < 120 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}

function clockTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace('.000Z', 'Z');
}

export class HttpClient {
  constructor(private readonly options: HttpClientOptions) {}

  buildUrl(path: string, query?: ApiRequest['query']): string {
    const url = new URL(this.options.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  /** Whether `url` (absolute) is on the base URL's origin: the only place the key may go. */
  isSameOrigin(url: string): boolean {
    return new URL(url).origin === new URL(this.options.baseUrl).origin;
  }

  private sameOriginUrl(url: string): string {
    if (!this.isSameOrigin(url)) throw new UsageError(`refusing to send the API key to ${new URL(url).origin}: not the base URL's origin`);
    return new URL(url).toString();
  }

  /** Sends the request, waiting out rate limits and retrying where safe. Resolves only with a 2xx. */
  async send(request: ApiRequest): Promise<ApiResponse> {
    const { options } = this;
    const url = request.url === undefined ? this.buildUrl(request.path, request.query) : this.sameOriginUrl(request.url);
    const body = request.rawBody ?? (request.body === undefined ? undefined : stringifyJson(request.body));
    const wait = request.hooks?.wait ?? options.wait;
    const paced = request.hooks?.paced === true;
    // Retry waits and blocks after a 429 count toward --max-wait together; a rate-limit window is bounded one wait at a time.
    let waitedMs = 0;
    let retriesDone = 0;

    for (;;) {
      waitedMs += await this.passGate(paced, request.hooks?.reserve ?? 0, waitedMs, wait);
      await request.hooks?.beforeSend?.();

      let outcome: AttemptOutcome;
      let response: RawResponse | undefined;
      let failure: PetctlError | undefined;
      try {
        response = await this.attempt(request.method, url, body, request.headers);
        outcome = { kind: 'response', status: response.status };
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        failure = error;
        outcome = { kind: 'network', sent: error.sent };
      }

      let retryAfterMs: number | undefined;
      if (response) {
        const rate = parseRateHeaders(response.header);
        request.hooks?.onAnswer?.(response.status, rate);
        request.observe?.(response.header);
        request.onResponse?.(response);
        retryAfterMs = await this.recordLimits(response, rate, this.serverNow(response.header('date')), paced);
        if (response.status >= 200 && response.status < 300) {
          const parsed = request.rawResponse ? undefined : this.parseBody(response, request.method, url);
          return { status: response.status, url, body: parsed, text: response.text, headers: response.headers, rate, header: response.header };
        }
        failure = this.errorFor(response, request.method, url, retryAfterMs);
      }

      if (!shouldRetry(outcome, retriesDone, options.retries, request.method)) throw failure;
      const delay = delayFor(retryAfterMs, retriesDone, options.random);
      // --max-wait 0 means never wait, even when the jitter happens to come out at 0 ms.
      if (waitedMs + delay > options.maxWaitMs || options.maxWaitMs === 0) throw failure;
      retriesDone += 1;
      const why = response ? `HTTP ${response.status}` : 'network error';
      await wait(delay, `${why}; retry ${retriesDone}/${options.retries} in ${formatWait(delay)}`);
      waitedMs += delay;
    }
  }

  /**
   * Waits until the shared gate lets this request go: nothing is sent while a
   * 429, a ban or an exhausted window (seen by this or another process) is in
   * force. Returns the wait that counts toward --max-wait.
   */
  private async passGate(paced: boolean, reserve: number, waitedMs: number, wait: (ms: number, why: string) => Promise<void>): Promise<number> {
    const { gate, maxWaitMs, now } = this.options;
    let counted = 0;
    for (;;) {
      const decision = await gate.acquire(paced, reserve);
      if (decision.go) return counted;
      const ms = Math.max(0, decision.until - now());
      // A probe's answer is due within milliseconds: waiting for it is not a rate-limit wait.
      if (decision.reason === 'probe') {
        await wait(ms, 'waiting for the rate-limit window');
        continue;
      }
      const afterRetry = decision.reason === 'rate_limited' || decision.reason === 'key_banned';
      if ((afterRetry ? waitedMs + counted + ms : ms) > maxWaitMs) throw this.gateError(decision, ms);
      await wait(ms, `rate limit reached; waiting ${formatWait(ms)} for the window to reopen`);
      if (afterRetry) counted += ms;
    }
  }

  private gateError(decision: Extract<GateDecision, { go: false }>, ms: number): RateLimitError {
    const reason = decision.reason === 'window' || decision.reason === 'probe' ? 'quota_exhausted' : decision.reason;
    const why = reason === 'key_banned' ? 'the API key is temporarily banned' : 'rate limit reached';
    return new RateLimitError(`${why}; nothing sent. Try again after ${clockTime(decision.until)} (in ${formatWait(ms)})`, {
      code: reason,
      retryAt: decision.until,
      hint: this.options.maxWaitMs === 0 ? undefined : 'raise --max-wait to wait longer',
    });
  }

  /** Tells the gate what the answer said about the limits; returns a 429's Retry-After in ms. */
  /**
   * The server's clock now, from its Date headers. Date is cut to the second,
   * so one answer says only that the server's clock is at least Date; the
   * highest (Date - our clock) seen in this run is a lower bound of the skew
   * that tightens with every answer. Measured from it, waits for a reset are
   * never early, and in a long import no longer up to a second late.
   */
  private serverNow(dateHeader: string | undefined): number | undefined {
    const serverDate = parseHttpDate(dateHeader);
    if (serverDate === undefined) return undefined;
    const now = this.options.now();
    this.serverClockAhead = Math.max(this.serverClockAhead ?? -Infinity, serverDate - now);
    return now + this.serverClockAhead;
  }

  private serverClockAhead: number | undefined;

  private async recordLimits(response: RawResponse, rate: RateHeaders, serverNow: number | undefined, paced: boolean): Promise<number | undefined> {
    const now = this.options.now();
    const resetIn = resetDelayMs(rate.resetEpochSeconds, serverNow, now);
    const answer: RateAnswer = {
      status: response.status,
      remaining: rate.remaining,
      reset: rate.resetEpochSeconds,
      resetAt: resetIn === undefined ? undefined : now + resetIn,
    };
    let retryAfterMs: number | undefined;
    if (response.status === 429) {
      retryAfterMs = parseRetryAfter(response.header('retry-after'), serverNow, now);
      // Without Retry-After the backoff decides; block at least until the window's reset when known.
      answer.retryAt = retryAfterMs !== undefined ? now + retryAfterMs : answer.resetAt;
      answer.banned = this.errorCode(response) === 'key_banned';
    }
    await this.options.gate.record(answer, paced);
    return retryAfterMs;
  }

  private errorCode(response: RawResponse): string | undefined {
    try {
      const parsed = ErrorBody.safeParse(parseJson(response.text));
      return parsed.success ? parsed.data.code : undefined;
    } catch {
      return undefined;
    }
  }

  private async attempt(method: string, url: string, body: string | Buffer | undefined, extraHeaders: Record<string, string> = {}): Promise<RawResponse> {
    const { options } = this;
    const trace = options.trace;
    const started = options.now();
    trace?.(`> ${method} ${url}`);
    trace?.('> Authorization: Bearer [redacted]');

    const attempt = new AbortController();
    const onAbort = () => attempt.abort(options.signal.reason);
    if (options.signal.aborted) throw new InterruptedError();
    options.signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => attempt.abort(TIMEOUT), options.timeoutMs);
    let status = 0;
    try {
      const target = new URL(url);
      const response = await sendRequest(options.dispatcher, {
        origin: target.origin,
        path: target.pathname + target.search,
        method: method as Dispatcher.HttpMethod,
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...lowerCaseNames(extraHeaders),
          // After the caller's headers, so that neither can be replaced.
          authorization: `Bearer ${options.apiKey}`,
          'user-agent': options.userAgent,
        },
        body,
        signal: attempt.signal,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      });
      status = response.statusCode;
      const text = await response.body.text();
      const header = headerGetter(response.headers);
      if (trace) {
        const limits = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']
          .map((name) => [name, header(name)] as const)
          .filter(([, value]) => value !== undefined)
          .map(([name, value]) => `${name}=${value}`)
          .join(' ');
        trace(`< ${response.statusCode} in ${options.now() - started} ms${limits ? ` ${limits}` : ''}`);
      }
      return { status: response.statusCode, text, headers: response.headers, header };
    } catch (error) {
      if (options.signal.aborted) throw new InterruptedError();
      // undici stopped reading at the cap; the same request would get the same flood, so it is an answer, not a fault to retry.
      if (errorCode(error) === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
        throw new InvalidResponseError(`${method} ${url} answered with a body over ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB; petctl stopped reading it`, status);
      }
      const timedOut = attempt.signal.aborted && attempt.signal.reason === TIMEOUT;
      const code = errorCode(error) ?? '';
      const sent = !NOT_CONNECTED_CODES.has(code) && !TLS_TRUST_CODES.has(code);
      if (timedOut || /TIMEOUT/.test(code)) {
        throw new NetworkError(`no answer from ${new URL(url).host} within ${options.timeoutMs / 1000}s (--timeout)`, { code: 'timeout', sent, cause: error });
      }
      throw new NetworkError(`${method} ${url} failed: ${describeNetworkError(error)}`, { sent, cause: error });
    } finally {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    }
  }

  private parseBody(response: RawResponse, method: string, url: string): unknown {
    if (response.status === 204 || response.text === '') return undefined;
    try {
      return parseJson(response.text);
    } catch {
      throw new InvalidResponseError(`${method} ${url} answered ${response.status} with a body that is not JSON${snippet(response.text)}`, response.status);
    }
  }

  private hintFor(status: number): string | undefined {
    return status === 401 ? (this.options.authHint ?? 'run petctl auth login') : undefined;
  }

  private errorFor(response: RawResponse, method: string, url: string, retryAfterMs: number | undefined): PetctlError {
    let parsed: ReturnType<typeof ErrorBody.safeParse> | undefined;
    try {
      parsed = ErrorBody.safeParse(parseJson(response.text));
    } catch {
      parsed = undefined;
    }
    const status = response.status;
    // undici never follows redirects on its own; neither does petctl (the key would travel with it).
    if (status >= 300 && status < 400) return new RedirectError(method, url, status, printableLocation(response.header('location')));
    if (status === 429) {
      const body = parsed?.success ? parsed.data : undefined;
      const banned = body?.code === 'key_banned';
      const retryAt = retryAfterMs === undefined ? undefined : this.options.now() + retryAfterMs;
      const when = retryAt === undefined ? 'later' : `after ${clockTime(retryAt)} (in ${formatWait(retryAfterMs!)})`;
      const what = banned ? 'the API key is temporarily banned' : 'rate limited';
      return new RateLimitError(`${what}: ${body?.message ?? 'too many requests'}. Try again ${when}`, {
        code: body?.code ?? 'rate_limited',
        status,
        body,
        retryAt,
        hint: banned ? undefined : 'raise --retries or --max-wait to wait longer',
      });
    }
    if (parsed?.success) {
      return new ApiError(method, url, status, parsed.data, this.hintFor(status));
    }
    if (status >= 500) {
      return new InvalidResponseError(`${method} ${url} failed with HTTP ${status}${snippet(response.text)}`, status);
    }
    // A 4xx without the Error body the specification promises: keep the status's meaning.
    return new ApiError(method, url, status, { code: `http_${status}`, message: `HTTP ${status} without an Error body${snippet(response.text)}` }, this.hintFor(status));
  }
}

/** The Location as sent, on one line and of a readable length: it ends up in the error message. */
function printableLocation(value: string | undefined): string | undefined {
  const text = value?.trim().replace(/[\u0000-\u001f\u007f]/g, ' ');
  if (!text) return undefined;
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return '';
  return `: ${flat.length > 80 ? `${flat.slice(0, 77)}...` : flat}`;
}

/** Failures that happen before a connection exists: the request cannot have reached the server. */
const NOT_CONNECTED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(error: unknown): string | undefined {
  const err = error as { code?: string; cause?: { code?: string } } | undefined;
  return err?.code ?? err?.cause?.code;
}

function describeNetworkError(error: unknown): string {
  const err = error as { message?: string };
  const code = errorCode(error);
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset by the server',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'DNS lookup failed',
    EHOSTUNREACH: 'host unreachable',
    UND_ERR_SOCKET: 'the connection closed before the answer was complete',
    UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the answer was cut short',
    UND_ERR_RES_EXCEEDED_MAX_SIZE: 'the answer was too large',
  };
  if (code && TLS_TRUST_CODES.has(code)) {
    return `the server's TLS certificate is not trusted (${certificateProblem(err)}); nothing was sent. For a private CA, set NODE_EXTRA_CA_CERTS to its certificate file`;
  }
  return (code && known[code]) ?? err.message ?? String(error);
}

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
