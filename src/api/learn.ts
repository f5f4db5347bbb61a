import { type Answer, errorBodyOf } from './answer';
import { type RateHeaders, ServerClock, parseRateHeaders, parseRetryAfter, resetDelayMs } from './limits/headers';
import type { LimitEntry } from './limits/entry';
import { type AttemptTimes, type GateDecision, type RateAnswer, blockedBy, observe } from './waits';

/** What each answer's head says of the limits, and this process's own record of them (waits.ts observe), changed the moment a
 * head is read: no request of this process passes the last check before the wire once a 429 is in. */

/** What one answer says about the limits (see Learner.readLimits): its times as waits.ts's AttemptTimes, and more. */
export interface Limits extends AttemptTimes {
  rate: RateHeaders;
  rateAnswer: RateAnswer;
  /** A 429: when this process may send again (Retry-After, else the reset, else the hold's end). */
  retryAt?: number;
  /** A 429 with code key_banned; known once the body is read. */
  banned: boolean;
}

export class Learner {
  private readonly serverClock: ServerClock;
  /** What this process's own answers said. */
  private own: LimitEntry | undefined;

  constructor(private readonly now: () => number) {
    this.serverClock = new ServerClock(now);
  }

  /** This process's own block, while it lasts, as a gate decision. */
  heldDecision(): GateDecision | undefined {
    return blockedBy(this.own, this.now());
  }

  /** What an answer's head says about the limits, taken into this process's record at once (nothing is awaited here). */
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
