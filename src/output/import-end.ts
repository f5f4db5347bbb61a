import type { BulkAddOptions, DryRunReport, ImportReport } from '../bulk/import';
import type { ImportEnding, ImportStop, RowFailure, RowResult, Tally } from '../bulk/outcome';
import type { Scan } from '../bulk/records';
import type { RowWords } from '../bulk/runner';
import { FailureError, InterruptedError, type PetctlError, RejectedError, ServiceError } from '../errors';
import type { Pet } from '../schemas/pet';
import type { OutputFormat } from '../globals';
import { ImportProgress } from './import-progress';
import { ListingProgress } from './listing';
import { jsonLines, jsonText, renderDetails } from './formats';
import { loadTable, renderOptions, renderRecords, type RecordColumn } from './records';
import type { OutputHost } from './stderr';
import { formatLocalDate, formatLocalMinute, formatWait } from './time';
import { formatCounted, importStop, plural, reworded } from './waits';

/** Invalid rows printed one per line before the rest are only counted. */
const INVALID_SHOWN = 20;

/** What an import tells, worded as it happens: rows on stdout (ndjson as each completes, json all at the end, table and
 * csv the failures), other lines on stderr; the rows kept for the end, and the time since its first request. */
export function importReport(
  options: Pick<BulkAddOptions, 'reserve' | 'concurrency'>,
  ctx: OutputHost,
): ImportReport & { writeRows(): Promise<void>; sendingMs(): number | undefined } {
  const format = ctx.globals.output;
  const results: RowResult[] = [];
  let invalidShown = 0;
  let progress: ImportProgress | undefined;
  return {
    writeRows: () => writeRows(results, ctx),
    sendingMs: () => progress?.sendingMs(),
    journalHeld(journal, holder, waiting) {
      const of = holder.source === undefined ? '' : ` of ${holder.source}`;
      const other = `another import${of}${holder.pid === undefined ? '' : ` (pid ${holder.pid})`}`;
      // --dry-run does not wait for the journal: its figures are as the journal stands.
      const said = ctx.terminal.stderrIsTerminal || ctx.globals.verbose;
      if (!waiting) ctx.warn(`the journal ${journal} is in use by ${other}: these figures may change when it finishes`);
      else if (said) ctx.notice(`petctl: waiting for ${other} to finish`);
    },
    invalid(row, line, reason) {
      if (++invalidShown <= INVALID_SHOWN) ctx.line(`line ${line} (row ${row}): ${reason}`);
    },
    scanned(scan, { ignored, refused, resumed, label }) {
      const more = scan.invalid - INVALID_SHOWN;
      if (more > 0) ctx.line(`... and ${more} more invalid rows (${scan.invalid} in all)`);
      if (ignored.length > 0) ctx.notice(ignoringLine(ignored));
      if (refused) return;
      for (const { row, line, id, record } of scan.changed) {
        const created = `${id} was created as ${String(record.pet.id)} on ${formatLocalDate(Date.parse(record.at))}`;
        ctx.line(`line ${line} (row ${row}): ${created}; it has changed since, and the service cannot update animals`);
      }
      if (scan.skippedCount > 0 && (!ctx.globals.quiet || scan.toSend === 0)) ctx.line(skippedLine(scan, label, resumed));
    },
    dryRun: (dryRun) => ctx.io.stdout.write(renderDryRun(dryRun, format, ctx.terminal.stdoutIsTerminal)),
    listing: () => new ListingProgress(ctx, true),
    looked: ({ rows, animals, pages, found, resend, ambiguous }, baseUrl) => {
      const among = `${formatCounted(animals, 'animal')} on ${targetLabel(baseUrl)} (${plural(pages, 'page')})`;
      const outcome = `${found} found, ${resend} not found (sent again), ${ambiguous} ambiguous`;
      ctx.notice(`looked for ${plural(rows, 'row')} sent without an answer among ${among}: ${outcome}`);
    },
    lookStopped: (animals, page) => {
      const after = `${formatCounted(animals, 'animal')} (page ${page}); nothing was sent and nothing recorded`;
      ctx.line(`looking for the rows sent without an answer stopped after ${after}`);
    },
    sending({ total, toSend, baseUrl }) {
      const { quiet, verbose } = ctx.globals;
      const bar = new ImportProgress(ctx.terminal.status, { quiet, verbose, total, toSend, reserve: options.reserve, concurrency: options.concurrency, now: ctx.now });
      progress = bar;
      return {
        words: rowWords(targetLabel(baseUrl)),
        onResult(result, sent) {
          if (format === 'ndjson') {
            // The bar is wiped first: stdout may be the same terminal; the next row redraws it.
            ctx.terminal.status.clear();
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
        stopping: () => bar.line(STOPPING_LINE),
        stop: () => bar.stop(),
      };
    },
  };
}

const STOPPING_LINE = 'petctl: stopping: no new requests; waiting for the ones in flight (Ctrl-C again to stop waiting)';

const FAILURE_COLUMNS: readonly RecordColumn<RowFailure>[] = [
  { key: 'row', header: 'ROW', value: (result) => String(result.row), csv: (result) => result.row },
  { key: 'line', header: 'LINE', value: (result) => String(result.line), csv: (result) => result.line },
  { key: 'code', header: 'CODE', value: (result) => result.error.code },
  { key: 'status', header: 'STATUS', value: (result) => String(result.error.status), csv: (result) => result.error.status },
  { key: 'message', header: 'MESSAGE', value: (result) => result.error.message, truncate: true },
];

/** The rows kept for the end, in row order: with -o json every row, with table and csv the failed ones (if any). */
async function writeRows(results: readonly RowResult[], ctx: OutputHost): Promise<void> {
  const format = ctx.globals.output;
  const sorted = [...results].sort((a, b) => a.row - b.row);
  if (format === 'json') ctx.io.stdout.write(jsonText(sorted, ctx.terminal.stdoutIsTerminal));
  else if (format === 'table' || format === 'csv') {
    const failures = sorted.filter((result) => !result.ok);
    const options = renderOptions(ctx);
    if (options.tty) await loadTable();
    if (failures.length > 0) ctx.io.stdout.write(renderRecords(FAILURE_COLUMNS, failures, format, options));
  }
}

/** `--dry-run`'s report: one object (json, ndjson, csv), or one sentence. */
function renderDryRun(report: DryRunReport, format: OutputFormat, tty: boolean): string {
  if (format !== 'table') {
    const fields = Object.entries(report).map(([key, value]) => ({ key, label: key, text: String(value) }));
    return renderDetails(fields, { dryRun: true, ...report }, format, tty);
  }
  return `would send ${report.wouldSend} of ${report.rows} rows: ${report.done} already created, ${report.unknown} with an unknown outcome, ${report.invalid} invalid; journal ${report.journal}\n`;
}

function skippedLine(scan: Pick<Scan, 'skipped' | 'skippedCount'>, label: (source: string) => string, resumingNew: boolean): string {
  const sources = [...scan.skipped.keys()].map(label);
  const lastAt = Math.max(...[...scan.skipped.values()].map((at) => Date.parse(at)));
  const why = resumingNew ? 'this --new import resumes the one that did not finish' : '--new sends them again';
  return `skipped ${plural(scan.skippedCount, 'row')} already created from ${sources.join(', ')} (last import ${formatLocalMinute(lastAt)}); ${why}`;
}

/** The columns an import does not send; a header's empty cells (`name,categoryId,,,`) are columns without a name. */
function ignoringLine(ignored: readonly string[]): string {
  const named = ignored.filter((name) => name !== '');
  if (named.length === ignored.length) return `ignoring columns: ${named.join(', ')}`;
  if (named.length === 0) return 'ignoring the columns without a header';
  return `ignoring columns: ${named.join(', ')}, and those without a header`;
}

const theRows = (n: number) => `the ${n === 1 ? 'row' : `${n} rows`}`;

export function resumeLine(notSent: number): string {
  return `rerun the same command to send ${theRows(notSent)} not sent yet`;
}

export function stopError(stop: ImportStop, now: number, target: string): PetctlError {
  switch (stop.kind) {
    case 'invalid_input':
      return new RejectedError(`${plural(stop.invalid, 'invalid row')} of ${stop.rows}; nothing was sent`, {
        code: 'invalid_input',
        // Only --dry-run refuses with --skip-invalid given; a dry run sends nothing, whatever is added to it.
        hint: stop.skipInvalid
          ? 'fix them; without --dry-run the valid rows are sent and these reported'
          : `fix them, or add --skip-invalid${stop.dryRun ? ' and leave out --dry-run' : ''} to send the valid rows and report the rest`,
      });
    case 'journal_busy': {
      const { holder, maxWaitMs } = stop;
      const who = [holder.pid === undefined ? undefined : `pid ${holder.pid}`, holder.source].filter((part) => part !== undefined).join(', ');
      const waited = maxWaitMs > 0 ? `, which did not finish within --max-wait ${formatWait(maxWaitMs)}` : '';
      return new FailureError(`the journal ${stop.journal} is in use by another import${who === '' ? '' : ` (${who})`}${waited}; nothing sent`, {
        code: 'journal_busy',
        hint: 'run the same command again once that import has finished, or raise --max-wait to wait for it: the rows it created are skipped',
      });
    }
    case 'listing_incomplete':
      // The service may hold animals that were not listed, so a row not found may exist after all.
      return new ServiceError(
        `the listing of ${target} may be incomplete: page ${stop.page} held ${stop.size} animals, as many as asked for, and came without a Link rel="next"; ${plural(stop.notFound, 'row')} not found there may exist, so nothing was sent`,
        {
          code: 'listing_incomplete',
          hint: 'check those rows with petctl pets list --all, add the missing ones with petctl pets add and take them out of the file; a rerun without --retry-unknown sends the other rows and leaves them alone',
        },
      );
    case 'ended':
      return endingError(stop.ending, { created: 0, rejected: 0, invalid: 0, unknown: 0, ambiguous: 0, left: stop.left }, now, target)!;
  }
}

function unwritableError(error: PetctlError & { deleted?: 'restored' | 'lost' }, created: number, left: number): PetctlError {
  const done = `the import stopped before sending another request: ${plural(created, 'row')} created by this run, ${plural(left, 'row')} not sent yet`;
  if (error.deleted === 'lost') {
    return new FailureError(`${error.message}; ${done}. It could not be written again, so a rerun would send the rows created before again`, {
      code: error.code,
      hint: 'check what was created with petctl pets list before importing this file again',
    });
  }
  return new FailureError(`${error.message}; ${done}. Once the cause is fixed, a rerun of the same command resumes`, {
    code: error.code,
    hint: error.deleted === 'restored' ? 'rerun the same command to send the rest' : 'free some space on its disk or make its directory writable again, then rerun the same command',
    cause: error,
  });
}

type ImportCounts = Pick<Tally, 'created' | 'rejected' | 'invalid' | 'unknown' | 'ambiguous'> & { left: number };

/** The error each ending is (its class the exit code), each hint saying what the next command does; undefined: done. */
export function endingError(ending: ImportEnding, counts: ImportCounts, now: number, target: string): PetctlError | undefined {
  const { created, left } = counts;
  switch (ending.kind) {
    case 'done':
      return undefined;
    case 'interrupted':
      return new InterruptedError();
    case 'unwritable':
      return unwritableError(ending.error, created, left);
    case 'rate_limited': {
      const { error } = ending;
      if (error.stop === undefined) return stoppedError(error, left);
      // Worded from the stop's facts: the core's own message speaks of one request, and rows may have been created.
      const { message, hint } = importStop(error.stop, { created, left, code: error.code, now });
      return reworded(error, message, hint);
    }
    case 'stopped':
      // A row that turned unknown stopped it (a dropped connection): the way on is --retry-unknown's.
      return stoppedError(ending.error, left, counts.unknown > 0 ? retryUnknownHint(target, left) : undefined);
    case 'unknown':
      return new ServiceError(`${plural(counts.unknown, 'row')} sent without an answer: outcome unknown; they are never resent on their own`, {
        code: 'outcome_unknown',
        hint: retryUnknownHint(target),
      });
    case 'ambiguous': {
      const others = counts.rejected + counts.invalid > 0 ? `; also ${plural(counts.rejected, 'row')} rejected by the server, ${plural(counts.invalid, 'row')} invalid` : '';
      return new RejectedError(`${plural(counts.ambiguous, 'row')} sent without an answer matched more than one animal on ${target}: neither sent nor recorded${others}`, {
        code: 'ambiguous_rows',
        hint: `a rerun finds them ambiguous again: check each row's candidate ids (in its output line) with petctl pets get <id>; if the row's animal is among them, take the row out of the file; if not, add it with petctl pets add and take it out${others === '' ? '' : '; fix the rejected and invalid rows too'}`,
      });
    }
    case 'rejected':
      return new RejectedError(`${plural(counts.rejected, 'row')} rejected by the server, ${plural(counts.invalid, 'row')} invalid`, {
        code: counts.rejected > 0 ? 'rows_rejected' : 'invalid_row',
        hint: 'fix those rows in the file and rerun the same command: only the rows not created yet are sent',
      });
  }
}

function stoppedError(error: PetctlError, left: number, hint = error.hint): PetctlError {
  // Every row sent (the last without an answer): a plain rerun has nothing to resume, and the hint says what does.
  const after = left > 0 ? `${plural(left, 'row')} not sent yet; rerun the same command to resume` : 'every row was sent';
  return reworded(error, `${error.message}; the import stopped, ${after}`, hint);
}

export function targetLabel(baseUrl: string | undefined): string {
  return baseUrl ?? 'the built-in sandbox';
}

function retryUnknownHint(target: string, notSent = 0): string {
  const rest = notSent > 0 ? `, then ${theRows(notSent)} not sent yet` : '';
  return `rerun with --retry-unknown: it lists the animals on ${target} and sends only the rows it does not find${rest}`;
}

export function rowWords(target: string): RowWords {
  return {
    retryUnknown: `rerun with --retry-unknown: it lists the animals on ${target} and sends the row again only if it does not find it`,
    ambiguous: (candidates) =>
      candidates.length === 1
        ? `sent earlier without an answer; the one animal with the fields it sent (${idList(candidates)}) may be another row's, which sent the same; neither sent nor recorded`
        : `sent earlier without an answer; ${candidates.length} animals have the fields it sent (${idList(candidates)}); neither sent nor recorded`,
  };
}

function idList(ids: ReadonlyArray<Pet['id']>): string {
  return `${ids.length === 1 ? 'id' : 'ids'} ${ids.map(String).join(', ')}`;
}
