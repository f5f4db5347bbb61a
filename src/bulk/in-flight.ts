/**
 * How many requests an import keeps in flight: `--concurrency N`, or `auto`, adapting to the answers as TCP's
 * congestion control (RFC 5681) and Netflix's concurrency-limits do (docs/bulk-import.md, "How many requests are
 * in flight"). Pure: the clock is given.
 */

export const IN_FLIGHT = {
  start: 4,
  min: 1,
  max: 256,
  /** A latency past `tolerance` x the best + `slackMs` has risen. */
  tolerance: 3,
  slackMs: 2,
  /** Each answer's weight in the smoothed latency (TCP's SRTT uses 1/8). */
  smoothing: 1 / 8,
  /** The best latency: the least of the current and the previous period of this length. */
  bestPeriodMs: 10_000,
  latencyBackoff: 0.75,
  errorBackoff: 0.5,
} as const;

export type Concurrency = number | 'auto';

type LevelCause = 'latency_held' | 'latency_rose' | 'too_many_requests' | 'server_error';

/** `status`: of a 429 or 5xx that backed off; the smoothed and the best latency when the latency caused it. */
export interface LevelChange {
  level: number;
  from: number;
  cause: LevelCause;
  status?: number;
  latencyMs?: number;
  bestMs?: number;
}

/** One request on the wire: when it went, and how many had gone before it. */
export interface Ticket {
  at: number;
  seq: number;
}

export class InFlightLimit {
  /** The level, fractional while it grows by one a round trip. */
  private limit: number;
  readonly adaptive: boolean;
  private onWire = 0;
  private waiting = 0;
  private sends = 0;
  /** Requests sent up to this one went before the last back-off. */
  private backedOffAt = 0;
  private slowStart = true;
  private smoothed: number | undefined;
  private best = { current: Infinity, previous: Infinity, since: -Infinity };

  constructor(
    concurrency: Concurrency,
    private readonly now: () => number,
    private readonly reserve = 0,
  ) {
    this.adaptive = concurrency === 'auto';
    this.limit = concurrency === 'auto' ? IN_FLIGHT.start : concurrency;
  }

  get level(): number {
    return Math.floor(this.limit);
  }

  get ceiling(): number {
    return this.adaptive ? IN_FLIGHT.max : this.level;
  }

  sent(): Ticket {
    this.onWire += 1;
    this.sends += 1;
    return { at: this.now(), seq: this.sends };
  }

  /** A request that went out came back without an answer, or went back to wait. */
  ended(): void {
    this.onWire = Math.max(0, this.onWire - 1);
  }

  /** A request waits at the gate or before a retry, until `waited`. */
  waits(): void {
    this.waiting += 1;
  }

  waited(): void {
    this.waiting = Math.max(0, this.waiting - 1);
  }

  /** `remaining`: the window's requests left, as the answer names them. */
  answered(ticket: Ticket, status: number, remaining?: number): LevelChange | undefined {
    const busy = this.onWire;
    this.ended();
    if (!this.adaptive) return undefined;
    // Its answer tells of the level before the last back-off.
    if (ticket.seq <= this.backedOffAt) return undefined;
    const from = this.level;
    if (status === 429 || status >= 500) {
      this.backOff(IN_FLIGHT.errorBackoff);
      return this.change(from, status === 429 ? 'too_many_requests' : 'server_error', { status });
    }
    const latency = this.observe(this.now() - ticket.at);
    if (latency.ms > IN_FLIGHT.tolerance * latency.best + IN_FLIGHT.slackMs) {
      this.backOff(IN_FLIGHT.latencyBackoff);
      return this.change(from, 'latency_rose', { latencyMs: latency.ms, bestMs: latency.best });
    }
    const room = remaining !== undefined && remaining - this.reserve > this.limit && this.waiting === 0 && busy * 2 >= this.limit;
    if (!room) return undefined;
    this.limit = Math.min(IN_FLIGHT.max, this.limit + (this.slowStart ? 1 : 1 / this.limit));
    return this.change(from, 'latency_held', { latencyMs: latency.ms, bestMs: latency.best });
  }

  private backOff(factor: number): void {
    this.limit = Math.max(IN_FLIGHT.min, Math.floor(this.limit * factor));
    this.slowStart = false;
    this.backedOffAt = this.sends;
    // The smoothed latency starts again from the answers at the new level.
    this.smoothed = undefined;
  }

  private observe(ms: number): { ms: number; best: number } {
    const at = this.now();
    const { best } = this;
    if (at - best.since >= IN_FLIGHT.bestPeriodMs) {
      best.previous = best.current;
      best.current = ms;
      best.since = at;
    } else best.current = Math.min(best.current, ms);
    this.smoothed = this.smoothed === undefined ? ms : this.smoothed + IN_FLIGHT.smoothing * (ms - this.smoothed);
    return { ms: this.smoothed, best: Math.min(best.current, best.previous) };
  }

  private change(from: number, cause: LevelCause, facts: Partial<LevelChange>): LevelChange | undefined {
    return this.level === from ? undefined : { level: this.level, from, cause, ...facts };
  }
}
