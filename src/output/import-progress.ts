import type { RateHeaders } from '../api/limits/headers';
import type { RowResult, Tally } from '../bulk/results';
import { safeLine } from './sanitize';
import { formatDuration, formatWait } from './time';

/**
 * What a bulk import shows on stderr while it runs. On a terminal: one bar
 * line redrawn in place (done/total, rate per minute, 429s so far, time left).
 * Off a terminal: no bar; with -v one line per row. Nothing with -q. The
 * summary line is written by summaryLine's caller.
 *
 * The rate is rows answered since the start, per minute, over at least one
 * minute: a first burst of a window's worth in a second is 60/min on a 60/min
 * plan, not 3600/min. The time left counts the windows still to wait at the
 * plan's rate (X-RateLimit-Limit per window, less --reserve), not only the
 * current burst.
 */

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  quiet: boolean;
  verbose: boolean;
  /** Rows the import will act on (sends, skips and failures alike). */
  total: number;
  /** --reserve: requests of every window the import leaves to others. */
  reserve?: number;
  now: () => number;
}

/** The rate limit's window when the headers do not tell (the specification's plans are per minute). */
const MINUTE_MS = 60_000;

/** `rows` done in `elapsedMs`, per minute, counting a run shorter than a minute as one minute. */
export function perMinute(rows: number, elapsedMs: number): number {
  return (rows * MINUTE_MS) / Math.max(elapsedMs, MINUTE_MS);
}

/** Rows the server answered (created or rejected) per minute of the run. */
export function ratePerMinute(tally: Tally, elapsedMs: number): number {
  return perMinute(tally.created + tally.rejected, elapsedMs);
}

/** `created N, skipped N, rejected N, invalid N, unknown N in <time> (<rate>/min); journal <path>` */
export function summaryLine(tally: Tally, elapsedMs: number, journal: string): string {
  const rate = Math.round(ratePerMinute(tally, elapsedMs));
  return `created ${tally.created}, skipped ${tally.skipped}, rejected ${tally.rejected}, invalid ${tally.invalid}, unknown ${tally.unknown} in ${formatDuration(elapsedMs)} (${rate}/min); journal ${journal}`;
}

/** The -v line for one row. */
export function rowLine(result: RowResult): string {
  const where = `row ${result.row} (line ${result.line})`;
  if (result.ok) return `${where}: ${'skipped' in result ? 'skipped, created earlier' : 'created'} id ${String(result.pet.id)}`;
  const { code, message, status } = result.error;
  if (code === 'invalid_row') return `${where}: invalid: ${message}`;
  if (code === 'outcome_unknown') return `${where}: outcome unknown: ${message}`;
  return `${where}: rejected: ${message} (${code}, HTTP ${status})`;
}

export class ImportProgress {
  private readonly bar: boolean;
  private done = 0;
  private sentDone = 0;
  private readonly toSend: number;
  private tooMany = 0;
  private waitingUntil: number | undefined;
  private readonly started: number;
  private timer: NodeJS.Timeout | undefined;
  private drawn = false;
  private stopped = false;
  private lastDraw = -Infinity;
  /** The rate limit as the last answer told it. */
  private limit: number | undefined;
  private remaining: number | undefined;
  private resetAt: number | undefined;
  private windowMs = MINUTE_MS;
  /** Time per row while requests flow (between answers less than a second apart). */
  private msPerRow: number | undefined;
  private lastRowAt: number | undefined;

  constructor(
    private readonly stderr: ProgressStream,
    private readonly options: ProgressOptions & { toSend: number },
  ) {
    this.bar = stderr.isTTY === true && !options.quiet;
    this.started = options.now();
    this.toSend = options.toSend;
    if (this.bar) {
      this.timer = setInterval(() => this.draw(), 1000);
      this.timer.unref();
      this.draw();
    }
  }

  /** A row is done; `sent` when this run sent it (its time counts towards the rate). */
  row(result: RowResult, sent: boolean): void {
    this.done += 1;
    if (sent) {
      this.sentDone += 1;
      const now = this.options.now();
      const gap = this.lastRowAt === undefined ? undefined : now - this.lastRowAt;
      if (gap !== undefined && gap < 1000) this.msPerRow = this.msPerRow === undefined ? gap : 0.8 * this.msPerRow + 0.2 * gap;
      this.lastRowAt = now;
    }
    if (this.options.verbose && !this.options.quiet) this.line(rowLine(result));
    else this.draw(true);
  }

  answer(status: number, rate: RateHeaders = {}): void {
    if (status === 429) this.tooMany += 1;
    const { limit, remaining, resetEpochSeconds } = rate;
    if (limit === undefined || remaining === undefined || resetEpochSeconds === undefined) return;
    const resetAt = resetEpochSeconds * 1000;
    // Windows follow one another: the step between two resets is the window's length.
    if (this.resetAt !== undefined && resetAt > this.resetAt) this.windowMs = resetAt - this.resetAt;
    if (this.resetAt === undefined || resetAt >= this.resetAt) {
      this.remaining = resetAt === this.resetAt ? Math.min(this.remaining ?? remaining, remaining) : remaining;
      this.resetAt = resetAt;
    }
    this.limit = limit;
  }

  /** The time left: the rest of this window's share, then whole windows at the plan's rate, then the last burst. */
  private timeLeft(now: number, sendsLeft: number, rate: number): number | undefined {
    const { limit, remaining, resetAt } = this;
    const reserve = this.options.reserve ?? 0;
    const burst = (rows: number) => rows * (this.msPerRow ?? 0);
    if (limit === undefined || remaining === undefined || resetAt === undefined) return rate > 0 ? (sendsLeft / rate) * MINUTE_MS : undefined;
    const perWindow = Math.max(1, limit - reserve);
    const live = resetAt > now;
    const thisWindow = live ? Math.max(0, remaining - reserve) : perWindow;
    if (sendsLeft <= thisWindow) return burst(sendsLeft);
    const later = sendsLeft - thisWindow;
    const windows = Math.ceil(later / perWindow);
    // Past the reset, a new window is open: the next one opens a window after it (windows follow one another).
    const untilNext = live ? resetAt - now : this.windowMs - ((now - resetAt) % this.windowMs);
    return untilNext + (windows - 1) * this.windowMs + burst(later - (windows - 1) * perWindow);
  }

  get tooManyRequests(): number {
    return this.tooMany;
  }

  waiting(ms: number): void {
    this.waitingUntil = this.options.now() + ms;
    this.draw();
  }

  waited(): void {
    this.waitingUntil = undefined;
  }

  /** Writes a line above the bar; a row's line quotes the server and the input, so it is made safe. */
  line(text: string): void {
    if (this.options.quiet) return;
    this.clear();
    this.stderr.write(`${safeLine(text)}\n`);
    this.draw(true);
  }

  /** Wipes the bar before a line goes to stdout, which may be the same terminal; the next row redraws it. */
  beforeOutput(): void {
    this.clear();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }

  private clear(): void {
    if (this.drawn) this.stderr.write('\r\x1b[K');
    this.drawn = false;
  }

  /** Redraws the bar; at most every 100 ms unless `force` (a row finished), so short waits do not flood the terminal. */
  private draw(force = false): void {
    if (!this.bar || this.stopped) return;
    const now = this.options.now();
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const elapsed = now - this.started;
    const rate = perMinute(this.sentDone, elapsed);
    const sendsLeft = Math.max(0, this.toSend - this.sentDone);
    let leftMs = this.sentDone > 0 ? this.timeLeft(now, sendsLeft, rate) : undefined;
    const waitLeft = this.waitingUntil === undefined ? 0 : Math.max(0, this.waitingUntil - now);
    if (waitLeft > 0) leftMs = Math.max(leftMs ?? 0, waitLeft);
    const { total } = this.options;
    const columns = this.stderr.columns;
    const width = columns !== undefined && columns < 100 ? 10 : 20;
    const filled = total > 0 ? Math.round((this.done / total) * width) : width;
    const parts = [
      `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.done}/${total}`,
      `${Math.round(rate)}/min`,
      `429s: ${this.tooMany}`,
      sendsLeft === 0 ? 'finishing' : leftMs === undefined ? 'time left: estimating' : `~${formatDuration(leftMs)} left`,
    ];
    if (waitLeft > 0) parts.push(`rate-limit wait ${formatWait(waitLeft)}`);
    let text = `import ${parts.join(' · ')}`;
    if (columns !== undefined && columns > 10 && text.length > columns - 1) text = text.slice(0, columns - 1);
    this.stderr.write(`\r\x1b[K${text}`);
    this.drawn = true;
  }
}
