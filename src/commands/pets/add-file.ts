import type { Context } from '../../context';
import { UsageError } from '../../errors';
import { type BulkAddOptions, type ImportReport, bulkAdd } from '../../bulk/import';
import { ImportStopped } from '../../bulk/outcome';
import { headerField } from '../../bulk/reader';
import type { RowResult } from '../../bulk/results';
import * as words from '../../output/import-end';
import { ImportProgress, summaryLine } from '../../output/import-progress';
import { ListingProgress } from '../../output/listing-stop';
import { noStatusLine } from '../../output/pets';
import { jsonLines } from '../../output/json';
import { loadTable, renderOptions } from '../../output/records';

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
  const target = async () => words.targetLabel((await ctx.target()).baseUrl);
  const report = importReport(options, ctx);
  const ended = await bulkAdd(options, ctx, report).catch(async (error: unknown) => {
    throw error instanceof ImportStopped ? words.stopError(error.stop, ctx.now(), await target()) : error;
  });
  if (ended === undefined) return;
  const { ending, tally, notSent } = ended;
  await writeRows(report.results, ctx);
  // Before the summary, so that an import ends with the summary (and, after Ctrl-C, how to go on).
  if (tally.noStatus > 0) ctx.notice(noStatusLine(tally.noStatus));
  ctx.notice(summaryLine(tally, { sendingMs: report.sendingMs(), runMs: ended.runMs }, ended.journal, options.retryUnknown));
  // After Ctrl-C, how to go on, as the error line of any other stop says it.
  if (ending.kind === 'interrupted' && notSent > 0) ctx.line(words.resumeLine(notSent));
  const error = words.endingError(ending, { ...tally, left: ended.left }, ctx.now(), await target());
  if (error) throw error;
}

/** The rows kept for the end: with -o json every row, with table and csv the failed ones. */
async function writeRows(results: RowResult[], ctx: Context): Promise<void> {
  const format = ctx.globals.output;
  if (format === 'json') ctx.io.stdout.write(words.renderRowArray(results, ctx.terminal.stdoutIsTerminal));
  else if (format === 'table' || format === 'csv') {
    const options = renderOptions(ctx);
    if (options.tty) await loadTable();
    ctx.io.stdout.write(words.renderFailures(results.filter((result) => !result.ok), format, options));
  }
}

/** What the import tells, worded as it happens; the rows kept for the end, and the time since its first request. */
function importReport(options: BulkAddOptions, ctx: Context): ImportReport & { results: RowResult[]; sendingMs(): number | undefined } {
  const format = ctx.globals.output;
  const results: RowResult[] = [];
  let invalidShown = 0;
  let progress: ImportProgress | undefined;
  return {
    results,
    sendingMs: () => progress?.sendingMs(),
    journalHeld(journal, holder, waiting) {
      if (!waiting) ctx.warn(words.journalInUseLine(journal, holder));
      else if (ctx.terminal.stderrIsTerminal || ctx.globals.verbose) ctx.notice(words.journalWaitLine(holder));
    },
    invalid(row, line, reason) {
      if (++invalidShown <= INVALID_SHOWN) ctx.line(words.invalidRowLine(row, line, reason));
    },
    scanned(scan, { ignored, refused, resumed, label }) {
      if (scan.invalid > INVALID_SHOWN) ctx.line(words.moreInvalidLine(INVALID_SHOWN, scan.invalid));
      if (ignored.length > 0) ctx.notice(words.ignoredColumnsLine(ignored));
      if (refused) return;
      for (const changed of scan.changed) ctx.line(words.changedRowLine(changed));
      if (scan.skippedCount > 0 && (!ctx.globals.quiet || scan.toSend === 0)) ctx.line(words.skippedLine(scan, label, resumed));
    },
    dryRun: (dryRun) => ctx.io.stdout.write(words.renderDryRun(dryRun, format)),
    listing: () => new ListingProgress(ctx, true),
    looked: (facts, baseUrl) => ctx.notice(words.lookupLine(facts, words.targetLabel(baseUrl))),
    lookStopped: (animals, page) => ctx.line(words.lookupStoppedLine(animals, page)),
    sending({ total, toSend, baseUrl }) {
      const { quiet, verbose } = ctx.globals;
      const bar = new ImportProgress(ctx.terminal.status, { quiet, verbose, total, toSend, reserve: options.reserve, concurrency: options.concurrency, now: ctx.now });
      progress = bar;
      return {
        words: words.rowWords(words.targetLabel(baseUrl)),
        onResult(result, sent) {
          if (format === 'ndjson') {
            bar.beforeOutput();
            ctx.io.stdout.write(jsonLines(result, ctx.terminal.stdoutIsTerminal));
          } else if (format === 'json' || !result.ok) results.push(result);
          bar.row(result, sent);
        },
        onSend: () => bar.sending(),
        onAnswer: (status, rate) => bar.answer(status, rate),
        onWait(ms, why) {
          bar.waiting(ms);
          // Off a terminal there is no bar: a wait gets one line (one for all the requests waiting for it), so the import does not look stuck.
          if (!ctx.terminal.status.live) ctx.announceWait(ms, why);
        },
        onWaited: () => bar.waited(),
        onLevel: (change) => bar.level(change),
        stopping: () => bar.line(words.STOPPING_LINE),
        stop: () => bar.stop(),
      };
    },
  };
}
