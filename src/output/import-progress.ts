import type { RowResult, Tally } from '../bulk/results';
import { toSingleLine } from './table';
import { formatDuration } from './time';

/**
 * What a bulk import shows on stderr while it runs. On a terminal: one bar
 * line redrawn in place (done/total, rate per minute, 429s so far, time left
 * including rate-limit waits). Off a terminal: no bar; with -v one line per
 * row. Nothing with -q. The summary line is written by summaryLine's caller.
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
  now: () => number;
}


/** Rows the server answered (created or rejected) per minute of the run. */
export function ratePerMinute(tally: Tally, elapsedMs: number): number {
  const answered = tally.created + tally.rejected;
  return elapsedMs > 0 ? (answered * 60_000) / elapsedMs : 0;
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
  if (code === 'invalid_row') return `${where}: invalid: ${toSingleLine(message)}`;
  if (code === 'outcome_unknown') return `${where}: outcome unknown: ${toSingleLine(message)}`;
  return `${where}: rejected: ${toSingleLine(message)} (${code}, HTTP ${status})`;
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
    if (sent) this.sentDone += 1;
    if (this.options.verbose && !this.options.quiet) this.line(rowLine(result));
    else this.draw(true);
  }

  answer(status: number): void {
    if (status === 429) this.tooMany += 1;
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

  /** Writes a line above the bar. */
  line(text: string): void {
    if (this.options.quiet) return;
    this.clear();
    this.stderr.write(`${text}\n`);
    this.draw(true);
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
    const rate = elapsed > 0 ? (this.sentDone * 60_000) / elapsed : 0;
    const sendsLeft = Math.max(0, this.toSend - this.sentDone);
    let leftMs = rate > 0 ? (sendsLeft / rate) * 60_000 : undefined;
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
    if (waitLeft > 0) parts.push(`rate-limit wait ${Math.ceil(waitLeft / 1000)}s`);
    let text = `import ${parts.join(' · ')}`;
    if (columns !== undefined && columns > 10 && text.length > columns - 1) text = text.slice(0, columns - 1);
    this.stderr.write(`\r\x1b[K${text}`);
    this.drawn = true;
  }
}
