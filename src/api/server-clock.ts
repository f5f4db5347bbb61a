import { parseHttpDate } from './retry';

/**
 * The server's clock, as far as its Date headers tell it. Date is cut to the
 * second, so one answer says only that the server's clock is at least Date;
 * the highest (Date - our clock) seen in this run is a lower bound of the skew
 * that tightens with every answer. Measured from it, waits for a reset are
 * never early, and in a long import no longer up to a second late.
 */
export class ServerClock {
  /** The lower bound of (server clock - ours), once one Date header has been seen. */
  private aheadMs: number | undefined;

  constructor(private readonly now: () => number) {}

  /** Learns from one answer's Date header; returns the server's time now, or undefined without a usable Date. */
  observe(dateHeader: string | undefined): number | undefined {
    const serverDate = parseHttpDate(dateHeader);
    if (serverDate === undefined) return undefined;
    const now = this.now();
    this.aheadMs = Math.max(this.aheadMs ?? -Infinity, serverDate - now);
    return now + this.aheadMs;
  }
}
