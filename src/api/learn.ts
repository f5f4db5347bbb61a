import { type Answer, errorBodyOf } from './answer';
import { type RateHeaders, ServerClock, parseRateHeaders, parseRetryAfter, resetDelayMs } from './limits/headers';
import type { LimitEntry } from './limits/entry';
import { type AttemptTimes, type GateDecision, type RateAnswer, blockedBy, observe } from './waits';

export interface Limits extends AttemptTimes {
  rate: RateHeaders;
  rateAnswer: RateAnswer;
  /** A 429: when this process may send again (Retry-After, else the reset, else the hold's end). */
  retryAt?: number;
  /** A 429 with code key_banned; known once the body is read. */
  banned: boolean;
}

/** This process's own record, changed the moment a head is read: no request passes the last check before the wire once a 429 is in. */
export class Learner {
  private readonly serverClock: ServerClock;
  private own: LimitEntry | undefined;

  constructor(private readonly now: () => number) {
    this.serverClock = new ServerClock(now);
  }

  heldDecision(): GateDecision | undefined {
    return blockedBy(this.own, this.now());
  }

  /** Synchronous: nothing is awaited between the head and the record. */
  readLimits(answer: Pick<Answer, 'status' | 'header'>): Limits {
    const now = this.now();
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
    if (answer.status !== 429) return { rate, rateAnswer, retryAfterMs, banned: false };
    // The limit's time in the order of docs/rate-limits.md: Retry-After; the IETF RateLimit's t=, X-RateLimit-Reset.
    const timed = rateAnswer.retryAt ?? rateAnswer.resetAt;
    if (timed !== undefined) return { rate, rateAnswer, retryAfterMs, resetInMs: retryAfterMs === undefined ? resetIn : undefined, retryAt: timed, banned: false };
    // No usable time: this process's hold (started now, or joined).
    const until = this.own?.blockedUntil ?? now;
    return { rate, rateAnswer, holdMs: until - now, retryAt: until, banned: false };
  }

  /** A 429's body, once read: whether it is a ban (Error code key_banned), which this process's record then says. */
  readBan(answer: Answer, limits: Limits): void {
    const banned = errorBodyOf(answer.text)?.code === 'key_banned';
    limits.banned = banned;
    limits.rateAnswer.banned = banned;
    if (banned && this.own?.blockedUntil === limits.retryAt) this.own = { ...this.own, reason: 'key_banned' };
  }
}
