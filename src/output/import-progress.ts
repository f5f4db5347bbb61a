import type { RateHeaders } from '../api/limits/headers';
import { type Concurrency, IN_FLIGHT, type LevelChange } from '../bulk/in-flight';
import type { BulkAddOptions } from '../bulk/import';
import type { RowResult, Tally } from '../bulk/outcome';
import type { StatusLine } from '../terminal';
import { formatDuration, formatWait } from './time';

/** What a bulk import shows on stderr while it runs (docs/bulk-import.md): the bar on a terminal, -v's lines; nothing with -q. */

/** `total`: the rows the import acts on (sends, skips and failures alike); `toSend`: those it sends. */
type ProgressOptions = Pick<BulkAddOptions, 'reserve' | 'concurrency'> & {
  quiet: boolean;
  verbose: boolean;
  total: number;
  toSend: number;
  now: () => number;
};

/** The rate limit's window when the headers do not tell (the specification's plans are per minute). */
const MINUTE_MS = 60_000;
/** The bar's rate is `rate: measuring` until the import has sent this long or had this many answers: less tells of a moment, not the import. */
const RATE_SAMPLE = { ms: 10_000, requests: 10 };

export function perMinute(rows: number, elapsedMs: number): number {
  return elapsedMs > 0 ? (rows * MINUTE_MS) / elapsedMs : 0;
}

/** Timed from the first request (`sendingMs`); with none sent, the run's time and 0/min: one shape, for scripts. */
export function summaryLine(tally: Tally, { sendingMs, runMs }: { sendingMs?: number; runMs: number }, journal: string, retried = false): string {
  const rate = Math.round(sendingMs === undefined ? 0 : perMinute(tally.created, sendingMs));
  const retry = retried ? `, found ${tally.found}, resent ${tally.resent}, ambiguous ${tally.ambiguous}` : '';
  return `created ${tally.created}, skipped ${tally.skipped}, rejected ${tally.rejected}, invalid ${tally.invalid}, unknown ${tally.unknown}${retry} in ${formatDuration(sendingMs ?? runMs)} (${rate}/min); journal ${journal}`;
}

function rowLine(result: RowResult): string {
  const where = `row ${result.row} (line ${result.line})`;
  if (result.ok) return `${where}: ${'skipped' in result ? 'skipped, created earlier' : 'retryUnknown' in result ? (result.retryUnknown === 'found' ? 'found, created earlier' : 'not found, sent again: created') : 'created'} id ${String(result.pet.id)}`;
  const { code, message, status } = result.error;
  if ('retryUnknown' in result) return `${where}: ambiguous: ${message}`;
  if (code === 'invalid_row') return `${where}: invalid: ${message}`;
  if (code === 'outcome_unknown') return `${where}: outcome unknown: ${message}`;
  return `${where}: rejected: ${message} (${code}, HTTP ${status})`;
}

const latencyText = (ms: number) => `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;

/** -v's line at the start and on a change. */
export function levelLine(change: LevelChange | { level: number; concurrency: Concurrency }): string {
  if ('concurrency' in change) return `* in flight: ${change.level} (--concurrency ${change.concurrency})`;
  const { level, from, cause, status, latencyMs = 0, bestMs = 0 } = change;
  const why = cause === 'latency_held' ? `answers in ${latencyText(latencyMs)}` : cause === 'latency_rose' ? `answers slowed to ${latencyText(latencyMs)}` : `HTTP ${status}`;
  const best = cause === 'latency_held' || cause === 'latency_rose' ? ` (best ${latencyText(bestMs)})` : '';
  return `* in flight: ${level}, ${level > from ? 'up' : 'down'} from ${from}: ${why}${best}`;
}

export class ImportProgress {
  /** On a terminal, without -q, until stop(). */
  private bar: boolean;
  private done = 0;
  private sentDone = 0;
  private created = 0;
  private tooMany = 0;
  private firstRequestAt: number | undefined;
  private waitingUntil: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastDraw = -Infinity;
  private limit: number | undefined;
  private remaining: number | undefined;
  private resetAt: number | undefined;
  private windowMs = MINUTE_MS;
  /** Time per row while requests flow (between answers less than a second apart). */
  private msPerRow: number | undefined;
  private lastRowAt: number | undefined;
  private inFlight: number;

  constructor(
    private readonly status: StatusLine,
    private readonly options: ProgressOptions,
  ) {
    this.bar = status.live && !options.quiet;
    this.inFlight = options.concurrency === 'auto' ? IN_FLIGHT.start : options.concurrency;
    if (this.bar) {
      this.timer = setInterval(() => this.draw(), 1000);
      this.timer.unref();
      this.draw();
    }
  }

  sending(): void {
    if (this.firstRequestAt === undefined && this.options.verbose) this.line(levelLine({ level: this.inFlight, concurrency: this.options.concurrency }));
    this.firstRequestAt ??= this.options.now();
  }

  level(change: LevelChange): void {
    this.inFlight = change.level;
    if (this.options.verbose) this.line(levelLine(change));
    this.draw();
  }

  sendingMs(): number | undefined {
    return this.firstRequestAt === undefined ? undefined : this.options.now() - this.firstRequestAt;
  }

  row(result: RowResult, sent: boolean): void {
    this.done += 1;
    if (sent) {
      this.sentDone += 1;
      if (result.ok) this.created += 1;
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

  /** From the end of the wait under way: the rest of that window's share, whole windows at the plan's rate, the last burst. */
  private timeLeft(now: number, sendsLeft: number, rate: number): number | undefined {
    const resume = Math.max(now, this.waitingUntil ?? now);
    const { limit, remaining, resetAt } = this;
    const burst = (rows: number) => rows * (this.msPerRow ?? 0);
    if (limit === undefined || remaining === undefined || resetAt === undefined) return rate > 0 ? resume - now + (sendsLeft / rate) * MINUTE_MS : undefined;
    const { reserve } = this.options;
    const perWindow = Math.max(1, limit - reserve);
    const sameWindow = resetAt > resume;
    const thisWindow = sameWindow ? Math.max(0, remaining - reserve) : perWindow;
    if (sendsLeft <= thisWindow) return resume - now + burst(sendsLeft);
    // Past the reset a new window is open at `resume`; the next one opens a window after it.
    const nextOpens = sameWindow ? resetAt : resetAt + this.windowMs * (Math.floor((resume - resetAt) / this.windowMs) + 1);
    const later = sendsLeft - thisWindow;
    const windows = Math.ceil(later / perWindow);
    return nextOpens - now + (windows - 1) * this.windowMs + burst(later - (windows - 1) * perWindow);
  }

  waiting(ms: number): void {
    this.waitingUntil = this.options.now() + ms;
    this.draw();
  }

  waited(): void {
    this.waitingUntil = undefined;
  }

  line(text: string): void {
    if (!this.options.quiet) this.status.print(text);
  }

  stop(): void {
    this.bar = false;
    clearInterval(this.timer);
    this.status.clear();
  }

  /** At most every 100 ms unless `force` (a row finished), so short waits do not flood the terminal. */
  private draw(force = false): void {
    if (!this.bar) return;
    const now = this.options.now();
    if (!force && now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const sending = this.sendingMs();
    const measured = sending !== undefined && (sending >= RATE_SAMPLE.ms || this.sentDone >= RATE_SAMPLE.requests);
    const rate = measured ? perMinute(this.created, sending) : undefined;
    const sendsLeft = Math.max(0, this.options.toSend - this.sentDone);
    const leftMs = this.sentDone === 0 ? undefined : this.timeLeft(now, sendsLeft, rate ?? 0);
    const waitLeft = this.waitingUntil === undefined ? 0 : Math.max(0, this.waitingUntil - now);
    let left: string | undefined;
    // Before the first answer the time left is not known, but the wait under way is, and is shown.
    if (sendsLeft === 0) left = 'finishing';
    // The wait is shown rounded up to the second: the time left, rounded to the nearest, must not read less.
    else if (leftMs !== undefined) left = `~${formatDuration(waitLeft > 0 ? Math.max(leftMs, Math.ceil(waitLeft / 1000) * 1000) : leftMs)} left`;
    else if (waitLeft === 0) left = 'time left: estimating';
    const frame = { done: this.done, total: this.options.total, rate, inFlight: this.inFlight, tooMany: this.tooMany, left, waitMs: waitLeft > 0 ? waitLeft : undefined };
    this.status.show(progressLine(frame, this.status.width()));
  }
}

/** `rate` undefined while it is measured. */
interface ProgressFrame {
  done: number;
  total: number;
  rate?: number;
  inFlight?: number;
  tooMany: number;
  left?: string;
  waitMs?: number;
}

/** The bar's line for a terminal `columns` wide, each part whole or not at all; when it does not fit, the level in
 * flight goes first, then the bar, the 429s, the time left and the wait, and on a terminal too narrow the rate: the
 * counts stay. */
export function progressLine(frame: ProgressFrame, columns: number | undefined): string {
  const { done, total, rate, inFlight, tooMany, left, waitMs } = frame;
  const barWidth = columns !== undefined && columns < 100 ? 10 : 20;
  const filled = total > 0 ? Math.round((done / total) * barWidth) : barWidth;
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}]`;
  const counts = `${done}/${total}`;
  const rateText = rate === undefined ? 'rate: measuring' : `${Math.round(rate)}/min`;
  const tooManyText = `429s: ${tooMany}`;
  const inFlightText = inFlight === undefined ? undefined : `in flight ${inFlight}`;
  const waitText = waitMs === undefined ? undefined : `rate-limit wait ${formatWait(waitMs)}`;
  const line = (...parts: Array<string | undefined>) => `import ${parts.filter((part) => part !== undefined).join(' · ')}`;
  const layouts = [
    line(`${bar} ${counts}`, rateText, tooManyText, inFlightText, left, waitText),
    line(`${bar} ${counts}`, rateText, tooManyText, left, waitText),
    line(counts, rateText, tooManyText, left, waitText),
    line(counts, rateText, left, waitText),
    line(counts, rateText, waitText),
    line(counts, rateText),
    line(counts),
    counts,
  ];
  // The terminal's last column would wrap the cursor on some terminals: one column short of it (terminal.ts).
  return layouts.find((layout) => columns === undefined || layout.length <= columns - 1) ?? counts;
}
