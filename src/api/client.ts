import { NetworkError, type PetctlError, StateUnwritableError, type WaitKind, type WaitWords } from '../errors';
import { stringifyJson } from '../schemas/json';
import { type Answer, afterAttempts, errorBodyOf, errorForAnswer, gateStop, parseSuccessBody } from './answer';
import { type AttemptOptions, attempt, failureReason } from './attempt';
import { type CacheAccess, sendThroughCache } from './cache';
import { type ApiRequest, type ApiResponse, requestUrl } from './request';
import type { LimitEntry } from './limits/entry';
import { type RateHeaders, ServerClock, parseRateHeaders, parseRetryAfter, resetDelayMs } from './limits/headers';
import type { RateLimitGate } from './limits/gate';
import type { AttemptOutcome, AttemptReport, AttemptTimes, RateAnswer, WaitBudget } from './waits';
import { attemptFits, blockedBy, countsTowardMaxWait, fitsBudget, gateWaitKind, observe, planRetry, requestDeadline } from './waits';

interface Limits extends AttemptTimes {
  rate: RateHeaders;
  rateAnswer: RateAnswer;
  /** A 429: when this process may send again (Retry-After, else the reset, else the hold's end). */
  retryAt?: number;
  /** A 429 with code key_banned; known once the body is read. */
  banned?: boolean;
}

export interface HttpClientOptions extends AttemptOptions {
  /** e.g. https://api.example.org/v1 (no trailing slash). */
  baseUrl: string;
  retries: number;
  maxWaitMs: number;
  gate: RateLimitGate;
  /** The core's wall clock (clock.ts steadyClock): a step of the machine's clock does not move it. */
  now: () => number;
  random: () => number;
  /** Waits `ms`, showing why; rejects when `signal` aborts. */
  wait: (ms: number, why: string) => Promise<void>;
  /** One line on stderr for a retry too short for `wait` to show (it shows a second or more). */
  announce?: (line: string) => void;
  words: WaitWords;
  /** For a 401: how to store a working key for this profile. */
  authHint?: string;
  cache?: CacheAccess;
}

export class HttpClient {
  private readonly serverClock: ServerClock;
  /** This process's own record, changed the moment a head is read: no request passes the last check before the wire
   * once a 429 is in. */
  private own: LimitEntry | undefined;
  /** A single command's waits, all its requests together: --max-wait bounds their total. */
  private readonly commandBudget: WaitBudget;
  /** What an answer said of the limits could not be stored: no further request goes (see recordLimits). */
  private unrecorded: StateUnwritableError | undefined;

  constructor(private readonly options: HttpClientOptions) {
    this.serverClock = new ServerClock(options.now);
    this.commandBudget = { maxWaitMs: options.maxWaitMs, waitedMs: 0 };
  }

  buildUrl(path: string, query?: ApiRequest['query']): string {
    return requestUrl(this.options.baseUrl, { path, query });
  }

  /** Sends the request (through the response cache with --cache). Resolves only with a 2xx. */
  send(request: ApiRequest): Promise<ApiResponse> {
    const { cache, baseUrl } = this.options;
    return cache ? sendThroughCache(request, cache, baseUrl, (same) => this.exchange(same)) : this.exchange(request);
  }

  /** Sends the request, waiting out rate limits and retrying where safe (waits.ts decides). Resolves only with a 2xx. */
  private async exchange(request: ApiRequest): Promise<ApiResponse> {
    const { options } = this;
    const url = requestUrl(options.baseUrl, request);
    const body = request.rawBody ?? (request.body === undefined ? undefined : stringifyJson(request.body));
    const hooks = request.hooks;
    const wait = hooks?.wait ?? options.wait;
    const paced = hooks?.paced === true;
    // A bulk import's request has a --max-wait of its own; a single command's requests share one.
    const budget = paced ? { maxWaitMs: options.maxWaitMs, waitedMs: 0 } : this.commandBudget;
    let retriesDone = 0;
    let bans = 0;
    const started = options.monotonic();
    /** requestDeadline, once the first attempt starts. */
    const bound: { deadline?: number } = {};

    for (;;) {
      // A ban waited out in the gate (any process's record) was this request's one; a key_banned after it ends it.
      if (await this.passGate(paced, hooks?.reserve ?? 0, budget, wait, bound)) bans = Math.max(bans, 1);
      await hooks?.beforeSend?.();
      // beforeSend (the journal's flush) took time: a 429 read meanwhile, here or by another process, holds this request too.
      // The last look at this process's own hold runs in the same turn as the attempt's dispatch: no answer is read in between.
      if (blockedBy(await options.gate.current(), options.now()) || blockedBy(this.own, options.now())) continue;

      let outcome: AttemptOutcome;
      let answer: Answer | undefined;
      let limits: Limits | undefined;
      let failure: PetctlError | undefined;
      bound.deadline ??= requestDeadline(options.monotonic(), options.timeoutMs, budget.maxWaitMs);
      const timeoutMs = bound.deadline - options.monotonic();
      try {
        answer = await attempt(options, { method: request.method, url, body, headers: request.headers, timeoutMs, onDispatch: hooks?.onDispatch, onHead: hooks?.onHead }, (head) => (limits = this.readLimits(head)));
        outcome = { kind: 'response', status: answer.status };
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        failure = error;
        outcome = { kind: 'network', sent: error.sent, retryable: error.retryable };
        // A head read before the body failed is the server's word on the limits; with none, a probe's lease is let go.
        await (limits ? this.recordLimits(limits.rateAnswer) : options.gate.abandon());
      }

      let report: AttemptReport = { outcome };
      if (answer && limits) {
        if (answer.status === 429) this.readBan(answer, limits);
        hooks?.onAnswer?.(answer);
        await this.recordLimits(limits.rateAnswer);
        if (answer.status >= 200 && answer.status < 300) {
          const parsed = request.rawResponse ? undefined : parseSuccessBody(answer, request.method, url);
          return { status: answer.status, url, body: parsed, text: answer.text, headers: answer.headers, rate: limits.rate, header: answer.header };
        }
        report = { ...limits, outcome };
        if (limits.banned) bans += 1;
        const { authHint, words, apiKey } = options;
        const { retryAt } = limits;
        failure = errorForAnswer(answer, { method: request.method, url, now: options.now(), retryAt, authHint, words, apiKey });
      }

      const timeLeftMs = bound.deadline - options.monotonic();
      const plan = planRetry(report, { timeLeftMs, timeoutMs: options.timeoutMs, retriesDone, maxRetries: options.retries, method: request.method, bans }, budget, paced, options.random);
      if (!plan.retry) {
        throw retriesDone > 0 && failure ? afterAttempts(failure, { count: retriesDone + 1, elapsedMs: options.monotonic() - started }, options.words) : failure;
      }
      retriesDone += 1;
      const reason = answer ? `HTTP ${answer.status}` : failureReason(failure as NetworkError, options.timeoutMs);
      const notice = options.words.notice({ what: 'retry', kind: plan.kind, ms: plan.ms, at: options.now(), retry: retriesDone, retries: options.retries, reason });
      // Every retry is named, however short its wait (a wait shows itself from a second on).
      if (plan.ms < 1000 && !hooks?.wait) options.announce?.(notice);
      await wait(plan.ms, notice);
      if (countsTowardMaxWait(plan.kind, paced)) budget.waitedMs += plan.ms;
    }
  }

  /** Waits until the gate lets this request go (or stops past --max-wait or the request's bound); whether it waited out a ban. */
  private async passGate(paced: boolean, reserve: number, budget: WaitBudget, wait: (ms: number, why: string) => Promise<void>, bound: { deadline?: number }): Promise<boolean> {
    const { gate, now, monotonic, timeoutMs } = this.options;
    if (this.unrecorded) throw this.unrecorded;
    let waitedOutBan = false;
    for (;;) {
      const decision = blockedBy(this.own, now()) ?? (await gate.acquire(reserve));
      if (decision.go) return waitedOutBan;
      const at = now();
      const ms = Math.max(0, decision.until - at);
      const kind: WaitKind = gateWaitKind(decision, at);
      const counted = countsTowardMaxWait(kind, paced);
      const pastBound = counted && bound.deadline !== undefined && !attemptFits(bound.deadline - monotonic() - ms, timeoutMs);
      if (!fitsBudget(kind, ms, budget, paced) || pastBound) throw gateStop({ kind, until: decision.until, at, by: 'gate', noWait: budget.maxWaitMs === 0 }, this.options.words);
      await wait(ms, this.options.words.notice({ what: 'gate', kind, ms, until: decision.until, at }));
      if (counted) budget.waitedMs += ms;
      else if (bound.deadline !== undefined) bound.deadline += ms;
      if (kind === 'ban') waitedOutBan = true;
    }
  }

  /** Stores what an answer said of the limits. Should the state file refuse, the answer still stands (a 201 is an animal
   * that exists); the failure stops this client's next request instead, as its limits are not kept. */
  private async recordLimits(answer: RateAnswer): Promise<void> {
    try {
      await this.options.gate.record(answer);
    } catch (error) {
      if (!(error instanceof StateUnwritableError)) throw error;
      this.unrecorded ??= error;
    }
  }

  /** Synchronous: nothing is awaited between the head and the record. */
  private readLimits(answer: Pick<Answer, 'status' | 'header'>): Limits {
    const now = this.options.now();
    const serverNow = this.serverClock.observe(answer.header('date'));
    const rate = parseRateHeaders(answer.header, serverNow ?? now);
    const resetIn = resetDelayMs(rate.resetEpochSeconds, serverNow, now);
    // RFC 9110 gives Retry-After to a 503 as well: a GET is retried after exactly that time.
    const retryAfterMs = answer.status === 429 || answer.status === 503 ? parseRetryAfter(answer.header('retry-after'), serverNow, now) : undefined;
    const rateAnswer: RateAnswer = {
      status: answer.status,
      limit: rate.limit,
      remaining: rate.remaining,
      reset: rate.resetEpochSeconds,
      resetAt: resetIn === undefined ? undefined : now + resetIn,
      retryAt: answer.status === 429 && retryAfterMs !== undefined ? now + retryAfterMs : undefined,
    };
    this.own = observe(this.own, rateAnswer, now) ?? this.own;
    if (answer.status !== 429) return { rate, rateAnswer, retryAfterMs };
    // The limit's time in the order of docs/rate-limits.md: Retry-After; the IETF RateLimit's t=, X-RateLimit-Reset.
    const timed = rateAnswer.retryAt ?? rateAnswer.resetAt;
    if (timed !== undefined) return { rate, rateAnswer, retryAfterMs, resetInMs: retryAfterMs === undefined ? resetIn : undefined, retryAt: timed };
    // No usable time: this process's hold (started now, or joined).
    const until = this.own?.blockedUntil ?? now;
    return { rate, rateAnswer, holdMs: until - now, retryAt: until };
  }

  /** A 429's body, once read: whether it is a ban (Error code key_banned), which this process's record then says. */
  private readBan(answer: Answer, limits: Limits): void {
    const banned = errorBodyOf(answer.text)?.code === 'key_banned';
    limits.banned = banned;
    limits.rateAnswer.banned = banned;
    if (banned && this.own?.blockedUntil === limits.retryAt) this.own = { ...this.own, reason: 'key_banned' };
  }
}
