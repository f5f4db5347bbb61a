import type { Context } from '../../context';
import { UsageError } from '../../errors';
import { type BulkAddOptions, type DryRunReport, type ImportReport, type SendReport, bulkAdd } from '../../bulk/import';
import type { LookupFacts } from '../../bulk/unknown-rows';
import type { JournalHolder } from '../../bulk/journal-lock';
import { type ImportEnd, ImportStopped } from '../../bulk/outcome';
import type { Scan } from '../../bulk/plan';
import { headerField } from '../../bulk/reader';
import type { RowResult } from '../../bulk/results';
import * as bulk from '../../output/bulk';
import * as words from '../../output/import-end';
import { ImportProgress, summaryLine } from '../../output/import-progress';
import { ListingProgress } from '../../output/listing-stop';
import { noStatusLine } from '../../output/no-status';
import { loadTable } from '../../output/records';
import { renderOptions } from '../../output/settings';

/** Invalid rows printed one per line before the rest are only counted. */
const INVALID_SHOWN = 20;

/** `pets add --file`: runs the import (src/bulk/) and words what it tells, on stderr and stdout. */
export async function importFile(options: BulkAddOptions, ctx: Context): Promise<void> {
  if (ctx.globals.query !== undefined) {
    // The rows stream out as they complete; there is no one JSON result to query.
    throw new UsageError('--query does not apply to --file', "use -o ndjson and a filter such as jq: petctl pets add --file f.csv -o ndjson | jq 'select(.ok | not)'");
  }
  const sent = options.idColumn === undefined ? undefined : headerField(options.idColumn, options.columns);
  if (sent !== undefined) throw new UsageError(`--id-column ${options.idColumn} names a field that is sent (${sent})`, 'name the column that holds your own id for each animal, such as an intake number');
  const report = new FileImportReport(options, ctx);
  const ended = await bulkAdd(options, ctx, report).catch(async (error: unknown) => {
    throw error instanceof ImportStopped ? words.stopError(error.stop, ctx.now(), await report.target()) : error;
  });
  if (ended) await report.ended(ended);
}

/** What an import tells, worded as it happens. */
class FileImportReport implements ImportReport {
  private invalidShown = 0;
  private progress: ImportProgress | undefined;
  /** With -o json every row, with table and csv the failed ones: written at the end. */
  private readonly results: RowResult[] = [];

  constructor(
    private readonly options: BulkAddOptions,
    private readonly ctx: Context,
  ) {}

  /** Where the animals are, as the hints name it. */
  async target(): Promise<string> {
    return words.targetLabel((await this.ctx.target()).baseUrl);
  }

  journalHeld(journal: string, holder: JournalHolder, waiting: boolean): void {
    const { ctx } = this;
    if (!waiting) ctx.warn(words.journalInUseLine(journal, holder));
    else if (ctx.terminal.stderrIsTerminal || ctx.globals.verbose) ctx.notice(words.journalWaitLine(holder));
  }

  invalid(row: number, line: number, reason: string): void {
    if (++this.invalidShown <= INVALID_SHOWN) this.ctx.line(words.invalidRowLine(row, line, reason));
  }

  scanned(scan: Scan, facts: { ignored: readonly string[]; refused: boolean; resumed: boolean; label(source: string): string }): void {
    const { ctx } = this;
    if (scan.invalid > INVALID_SHOWN) ctx.line(words.moreInvalidLine(INVALID_SHOWN, scan.invalid));
    if (facts.ignored.length > 0) ctx.notice(words.ignoredColumnsLine(facts.ignored));
    if (facts.refused) return;
    for (const changed of scan.changed) ctx.line(bulk.changedRowLine(changed));
    if (scan.skippedCount > 0 && (!ctx.globals.quiet || scan.toSend === 0)) ctx.line(bulk.skippedLine(scan, facts.label, facts.resumed));
  }

  dryRun(report: DryRunReport): void {
    this.ctx.io.stdout.write(bulk.renderDryRun(report, this.ctx.globals.output));
  }

  listing(): ListingProgress {
    return new ListingProgress(this.ctx, true);
  }

  looked(facts: LookupFacts, baseUrl: string | undefined): void {
    this.ctx.notice(words.lookupLine(facts, words.targetLabel(baseUrl)));
  }

  lookStopped(animals: number, page: number): void {
    this.ctx.line(words.lookupStoppedLine(animals, page));
  }

  sending(facts: { total: number; toSend: number; baseUrl: string | undefined }): SendReport {
    const { ctx, options, results } = this;
    const format = ctx.globals.output;
    const progress = new ImportProgress(ctx.terminal.status, { ...facts, quiet: ctx.globals.quiet, verbose: ctx.globals.verbose, reserve: options.reserve, concurrency: options.concurrency, now: ctx.now });
    this.progress = progress;
    return {
      words: words.rowWords(words.targetLabel(facts.baseUrl)),
      onResult(result, sent) {
        if (format === 'ndjson') {
          progress.beforeOutput();
          ctx.io.stdout.write(bulk.renderRowLine(result, ctx.terminal.stdoutIsTerminal));
        } else if (format === 'json' || !result.ok) results.push(result);
        progress.row(result, sent);
      },
      onSend: () => progress.sending(),
      onAnswer: (status, rate) => progress.answer(status, rate),
      onWait: (ms, why) => {
        progress.waiting(ms);
        // Off a terminal there is no bar: a wait gets one line (one for all the requests waiting for it), so the import does not look stuck.
        if (!ctx.terminal.status.live) ctx.announceWait(ms, why);
      },
      onWaited: () => progress.waited(),
      onLevel: (change) => progress.level(change),
      stopping: () => progress.line(words.STOPPING_LINE),
      stop: () => progress.stop(),
    };
  }

  /** The rows kept for the end, the summary, and the error the import ends with. */
  async ended({ ending, tally, left, notSent, runMs, journal }: ImportEnd): Promise<void> {
    const { ctx, results } = this;
    const format = ctx.globals.output;
    if (format === 'json') ctx.io.stdout.write(bulk.renderRowArray(results, ctx.terminal.stdoutIsTerminal));
    else if (format === 'table' || format === 'csv') {
      const options = renderOptions(ctx);
      if (options.tty) await loadTable();
      ctx.io.stdout.write(bulk.renderFailures(results.filter((result) => !result.ok), format, options));
    }
    // Before the summary, so that an import ends with the summary (and, after Ctrl-C, how to go on).
    if (tally.noStatus > 0) ctx.notice(noStatusLine(tally.noStatus));
    ctx.notice(summaryLine(tally, { sendingMs: this.progress?.sendingMs(), runMs }, journal, this.options.retryUnknown));
    // After Ctrl-C, how to go on, as the error line of any other stop says it.
    if (ending.kind === 'interrupted' && notSent > 0) ctx.line(words.resumeLine(notSent));
    const error = words.endingError(ending, { ...tally, left }, ctx.now(), await this.target());
    if (error) throw error;
  }
}
