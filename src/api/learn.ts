import { type Answer, errorBodyOf } from './answer';
import type { GateDecision, RateAnswer } from './limits/rules';
import { type RateHeaders, ServerClock, parseRateHeaders, parseRetryAfter, resetDelayMs } from './limits/headers';
import { holdAfterTimeless429 } from './retry';

/**
 * The "learn" step of the send loop: what each answer's head says of the
 * limits, and this process's own hold after a 429. The hold is set the
 * moment a head is read, before any await, so that no request of this
 * process passes the last check before the wire once a 429 is in (the shared
 * gate learns of it a moment later).
 */

/** What one answer says about the limits (see Learner.readLimits). */
export interface Limits {
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

export class Learner {
  private readonly serverClock: ServerClock;
  /** The latest 429's block as this process read it. */
  private held: { until: number; banned: boolean; holdMs?: number } | undefined;

  constructor(private readonly now: () => number) {
    this.serverClock = new ServerClock(now);
  }

  /** This process's own 429 block, while it lasts, as a gate decision. */
  heldDecision(): GateDecision | undefined {
    const held = this.held;
    if (!held || held.until <= this.now()) return undefined;
    return { go: false, until: held.until, reason: held.banned ? 'key_banned' : held.holdMs === undefined ? 'rate_limited' : 'hold' };
  }

  /**
   * What an answer's head says about the limits. Called the moment the head
   * is read, before the body: a 429's block holds this process's requests at
   * once (nothing is awaited here), so none passes the last check before the
   * wire while the body is still being read.
   */
  readLimits(answer: Pick<Answer, 'status' | 'header'>): Limits {
    const now = this.now();
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
  readBan(answer: Answer, limits: Limits): void {
    const banned = errorBodyOf(answer.text)?.code === 'key_banned';
    limits.banned = banned;
    limits.rateAnswer.banned = banned;
    if (banned && this.held !== undefined && this.held.until === limits.retryAt) this.held = { ...this.held, banned };
  }
}
