import type { Dispatcher } from 'undici';
import { InterruptedError, InvalidResponseError, NetworkError, type PetctlError, UsageError } from '../errors';
import { stringifyJson } from '../schemas/json';
import { type Answer, errorBodyOf, errorForAnswer, parseSuccessBody } from './answer-errors';
import { errorCode, networkFailure } from './network-errors';
import type { GateDecision, RateAnswer } from './limits/rules';
import type { RateLimitGate } from './limits/gate';
import { StateUnwritableError } from './limits/file-store';
import { type RateHeaders, ServerClock, parseRateHeaders, parseRetryAfter, resetDelayMs } from './limits/headers';
import { type AttemptOutcome, holdAfterTimeless429 } from './retry';
import { isSameOrigin } from './same-origin';
import { MAX_RESPONSE_BYTES, sendRequest } from './transport';
import {
  type AttemptReport,
  type WaitBudget,
  type WaitKind,
  countsTowardMaxWait,
  fitsBudget,
  gateStopError,
  gateWaitKind,
  gateWaitNotice,
  planRetry,
  retryNotice,
} from './wait-policy';

/**
 * The HTTP core's send loop: the auth and identity headers, the rate-limit
 * gate, one attempt on the wire, and retries. What each wait is and how long
 * it may be is decided in wait-policy.ts; what an answer means in
 * answer-errors.ts and network-errors.ts; the server's clock in
 * limits/headers.ts. Endpoint functions (pets.ts) sit on top and validate
 * bodies; nothing here knows what a Pet is.
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
  /** Per-request hooks; bulk import uses them to journal and to show waits in its progress bar. */
  hooks?: RequestHooks;
}

export interface RequestHooks {
  /**
   * Awaited on every attempt once the rate-limit gate has let the request go,
   * just before it is written to the wire: a request still waiting in the gate
   * was never sent. The gate is asked again after it (a 429 may have come in
   * meanwhile), so a request past this point may still wait, then comes back here.
   */
  beforeSend?: () => void | Promise<void>;
  /**
   * Sees every HTTP answer whole, errors and 429s included (`petctl api -i`
   * shows an error's head, getPet reads Sunset, bulk import counts statuses).
   */
  onAnswer?: (answer: Answer) => void;
  /** Replaces the session's wait (its countdown line) for this request's waits; must reject on Ctrl-C. */
  wait?: (ms: number, why: string) => Promise<void>;
  /**
   * A bulk import's request: it draws from the budget shared by every process
   * on this machine from the first request (see pacing.ts), and waiting for
   * the plan's minute window is its pace, not a wait that --max-wait bounds.
   */
  paced?: boolean;
  /** With `paced`: requests of every window left unused for other commands on the key (`pets add --reserve`). */
  reserve?: number;
  /**
   * Keep what the answer says of the window in the rate-limit state, as a paced
   * request does, although this one is not paced: `auth status` and `auth login`
   * ask the service about the key, and `profile show` shows it afterwards.
   */
  keepLimits?: boolean;
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

const TIMEOUT = Symbol('timeout');

/** What one answer says about the limits (see HttpClient.readLimits). */
interface Limits {
  rate: RateHeaders;
  rateAnswer: RateAnswer;
  /** A 429's or a 503's usable Retry-After in ms. */
  retryAfterMs?: number;
  /** A 429 without Retry-After: ms until the window's reset, when named. */
  resetInMs?: number;
  /** A 429 that named no usable time: ms until this process's hold ends. */
  holdMs?: number;
  /** A 429: when this process may send again (Retry-After, else the reset, else the hold's end). */
  retryAt?: number;
  /** A 429 with code key_banned; known once the body is read. */
  banned: boolean;
}

function headerGetter(headers: Record<string, string | string[] | undefined>) {
  return (name: string): string | undefined => {
    const value = headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

export type { Answer } from './answer-errors';

export class HttpClient {
  private readonly serverClock: ServerClock;
  /**
   * The latest 429's block as this process read it: set the moment the answer
   * is read, before any await, so that no request of this process passes the
   * last check before the wire once a 429 is in (the shared gate learns of it
   * a moment later).
   */
  private held: { until: number; banned: boolean; holdMs?: number } | undefined;
  /** A single command's waits, all its requests together: --max-wait bounds their total. */
  private readonly commandBudget: WaitBudget;
  /** What an answer said of the limits could not be stored: no further request goes (see recordLimits). */
  private unrecorded: StateUnwritableError | undefined;

  constructor(private readonly options: HttpClientOptions) {
    this.serverClock = new ServerClock(options.now);
    this.commandBudget = { maxWaitMs: options.maxWaitMs, waitedMs: 0 };
  }

  buildUrl(path: string, query?: ApiRequest['query']): string {
    const url = new URL(this.options.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  private sameOriginUrl(url: string): string {
    if (!isSameOrigin(url, this.options.baseUrl)) throw new UsageError(`refusing to send the API key to ${new URL(url).origin}: not the base URL's origin`);
    return new URL(url).toString();
  }

  /** Sends the request, waiting out rate limits and retrying where safe (wait-policy.ts decides). Resolves only with a 2xx. */
  async send(request: ApiRequest): Promise<ApiResponse> {
    const { options } = this;
    const url = request.url === undefined ? this.buildUrl(request.path, request.query) : this.sameOriginUrl(request.url);
    const body = request.rawBody ?? (request.body === undefined ? undefined : stringifyJson(request.body));
    const hooks = request.hooks;
    const wait = hooks?.wait ?? options.wait;
    const paced = hooks?.paced === true;
    // A bulk import's request has a --max-wait of its own; a single command's requests share one.
    const budget = paced ? { maxWaitMs: options.maxWaitMs, waitedMs: 0 } : this.commandBudget;
    let retriesDone = 0;
    let bans = 0;

    for (;;) {
      // A ban waited out in the gate (recorded by another process, or by another request of this one)
      // was this request's one wait for a ban: a key_banned answer after it is the second, and ends it.
      if (await this.passGate(paced, hooks?.reserve ?? 0, budget, wait)) bans = Math.max(bans, 1);
      await hooks?.beforeSend?.();
      // beforeSend (the journal's flush) took time: a 429 read meanwhile, here or by another process, holds this request too.
      // The last look at this process's own hold runs in the same turn as the attempt's dispatch: no answer is read in between.
      if ((await this.blockedSinceGate()) || this.heldDecision()) continue;

      let outcome: AttemptOutcome;
      let answer: Answer | undefined;
      let limits: Limits | undefined;
      let failure: PetctlError | undefined;
      try {
        answer = await this.attempt(request.method, url, body, request.headers, (head) => (limits = this.readLimits(head)));
        outcome = { kind: 'response', status: answer.status };
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        failure = error;
        outcome = { kind: 'network', sent: error.sent, retryable: error.retryable };
      }

      const report: AttemptReport = { outcome };
      if (answer && limits) {
        if (answer.status === 429) this.readBan(answer, limits);
        hooks?.onAnswer?.(answer);
        await this.recordLimits(limits.rateAnswer, paced || hooks?.keepLimits === true);
        if (answer.status >= 200 && answer.status < 300) {
          const parsed = request.rawResponse ? undefined : parseSuccessBody(answer, request.method, url);
          return { status: answer.status, url, body: parsed, text: answer.text, headers: answer.headers, rate: limits.rate, header: answer.header };
        }
        Object.assign(report, { retryAfterMs: limits.retryAfterMs, resetInMs: limits.resetInMs, holdMs: limits.holdMs, banned: limits.banned });
        if (limits.banned) bans += 1;
        failure = errorForAnswer(answer, { method: request.method, url, now: options.now(), retryAt: limits.retryAt, authHint: options.authHint });
      }

      const plan = planRetry(report, { retriesDone, maxRetries: options.retries, method: request.method, bans }, budget, paced, options.random);
      if (!plan.retry) throw failure;
      retriesDone += 1;
      const what = answer ? `HTTP ${answer.status}` : 'network error';
      await wait(plan.ms, retryNotice(what, plan.kind, plan.ms, retriesDone, options.retries, options.now()));
      if (countsTowardMaxWait(plan.kind, paced)) budget.waitedMs += plan.ms;
    }
  }

  /**
   * Waits until the gate lets this request go: nothing is sent while a 429,
   * a ban or an exhausted window (seen by this or another process) is in
   * force. Ends with the wait policy's error when a wait does not fit --max-wait.
   * Resolves with whether it waited out a ban.
   */
  private async passGate(paced: boolean, reserve: number, budget: WaitBudget, wait: (ms: number, why: string) => Promise<void>): Promise<boolean> {
    const { gate, now } = this.options;
    if (this.unrecorded) throw this.unrecorded;
    let waitedOutBan = false;
    for (;;) {
      const decision = this.heldDecision() ?? (await gate.acquire(paced, reserve));
      if (decision.go) return waitedOutBan;
      const at = now();
      const ms = Math.max(0, decision.until - at);
      const kind: WaitKind = gateWaitKind(decision, at);
      if (!fitsBudget(kind, ms, budget, paced)) throw gateStopError(kind, decision.until, at, budget.maxWaitMs);
      await wait(ms, gateWaitNotice(kind, ms, decision.until, at));
      if (countsTowardMaxWait(kind, paced)) budget.waitedMs += ms;
      if (kind === 'ban') waitedOutBan = true;
    }
  }

  /**
   * Stores what an answer said of the limits. Should the state file refuse
   * the write, the answer still stands (a POST's 201 is an animal that
   * exists, to be reported and journaled as created); the failure stops this
   * client's next request instead, as the limits it would go by are not kept.
   */
  private async recordLimits(answer: RateAnswer, keep: boolean): Promise<void> {
    try {
      await this.options.gate.record(answer, keep);
    } catch (error) {
      if (!(error instanceof StateUnwritableError)) throw error;
      this.unrecorded ??= error;
    }
  }

  /** This process's own 429 block, while it lasts, as a gate decision. */
  private heldDecision(): GateDecision | undefined {
    const held = this.held;
    if (!held || held.until <= this.options.now()) return undefined;
    return { go: false, until: held.until, reason: held.banned ? 'key_banned' : held.holdMs === undefined ? 'rate_limited' : 'hold' };
  }

  /**
   * The gate asked again, right before the wire: whether a block recorded
   * since it let the request go (a 429 here, or anything another process
   * recorded) holds it. The caller looks at this process's own hold last,
   * synchronously with the attempt.
   */
  private async blockedSinceGate(): Promise<boolean> {
    if (this.heldDecision()) return true;
    const entry = await this.options.gate.current();
    return (entry?.blockedUntil ?? 0) > this.options.now();
  }

  /**
   * What an answer's head says about the limits. Called the moment the head
   * is read, before the body: a 429's block holds this process's requests at
   * once (nothing is awaited here), so none passes the last check before the
   * wire while the body is still being read.
   */
  private readLimits(answer: Pick<Answer, 'status' | 'header'>): Limits {
    const now = this.options.now();
    const serverNow = this.serverClock.observe(answer.header('date'));
    const rate = parseRateHeaders(answer.header, serverNow ?? now);
    const resetIn = resetDelayMs(rate.resetEpochSeconds, serverNow, now);
    const rateAnswer: RateAnswer = {
      status: answer.status,
      limit: rate.limit,
      remaining: rate.remaining,
      reset: rate.resetEpochSeconds,
      resetAt: resetIn === undefined ? undefined : now + resetIn,
    };
    // RFC 9110 gives Retry-After to a 503 as well: a GET is retried after exactly that time.
    const retryAfterMs = answer.status === 429 || answer.status === 503 ? parseRetryAfter(answer.header('retry-after'), serverNow, now) : undefined;
    if (answer.status !== 429) {
      // Any answer but a 429 after this process's hold has ended: the hold is over.
      if (this.held?.holdMs !== undefined && this.held.until <= now) this.held = undefined;
      return { rate, rateAnswer, retryAfterMs, banned: false };
    }
    rateAnswer.retryAt = retryAfterMs === undefined ? undefined : now + retryAfterMs;
    // The limit's time in the order of docs/rate-limits.md: Retry-After; the IETF RateLimit's t=, X-RateLimit-Reset (parseRateHeaders).
    const timed = rateAnswer.retryAt ?? rateAnswer.resetAt;
    if (timed !== undefined) {
      if (timed > (this.held?.until ?? 0)) this.held = { until: timed, banned: false };
      return { rate, rateAnswer, retryAfterMs, resetInMs: retryAfterMs === undefined ? resetIn : undefined, retryAt: timed, banned: false };
    }
    // No usable time: every request of this process holds at once (the shared record may make it longer: pacing.observe).
    let held = this.held;
    if (held === undefined || held.until <= now) {
      const holdMs = holdAfterTimeless429(held?.holdMs, undefined);
      held = this.held = { until: now + holdMs, banned: false, holdMs };
    }
    return { rate, rateAnswer, holdMs: held.until - now, retryAt: held.until, banned: false };
  }

  /** A 429's body, once read: whether it is a ban (Error code key_banned), which the hold and the record then say. */
  private readBan(answer: Answer, limits: Limits): void {
    const banned = errorBodyOf(answer.text)?.code === 'key_banned';
    limits.banned = banned;
    limits.rateAnswer.banned = banned;
    if (banned && this.held !== undefined && this.held.until === limits.retryAt) this.held = { ...this.held, banned };
  }

  /** One request on the wire. `onHead` runs synchronously as soon as the status and headers are in, before the body is read. */
  private async attempt(
    method: string,
    url: string,
    body: string | Buffer | undefined,
    extraHeaders: Record<string, string> | undefined,
    onHead: (head: Pick<Answer, 'status' | 'header'>) => void,
  ): Promise<Answer> {
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
          ...lowerCaseNames(extraHeaders ?? {}),
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
      const header = headerGetter(response.headers);
      onHead({ status, header });
      if (trace) {
        const limits = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']
          .map((name) => [name, header(name)] as const)
          .filter(([, value]) => value !== undefined)
          .map(([name, value]) => `${name}=${value}`)
          .join(' ');
        trace(`< ${response.statusCode} in ${options.now() - started} ms${limits ? ` ${limits}` : ''}`);
      }
      const text = await response.body.text();
      return { status: response.statusCode, text, headers: response.headers, header };
    } catch (error) {
      if (options.signal.aborted) throw new InterruptedError();
      // undici stopped reading at the cap; the same request would get the same flood, so it is an answer, not a fault to retry.
      if (errorCode(error) === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
        throw new InvalidResponseError(`${method} ${url} answered with a body over ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB; petctl stopped reading it`, status);
      }
      const timedOut = attempt.signal.aborted && attempt.signal.reason === TIMEOUT;
      throw networkFailure(error, { method, url, timeoutMs: options.timeoutMs, timedOut });
    } finally {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    }
  }
}

function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
