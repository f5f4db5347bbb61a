import path from 'node:path';
import type { Context } from '../context';
import { InterruptedError, UsageError } from '../errors';
import { requireKey } from '../config/target';
import { type RowFailure, type RowResult, type Tally, count, emptyTally } from './results';
import { openInput, stdinSpoolLimit } from './input';
import { JournalUnwritableError, JournalWriter, defaultJournalPath, readJournal, targetDigest } from './journal';
import { type RecordsPlan, type Scan, plannedRows, scanRows } from './plan';
import { type InputFormat, type ReadOptions, formatFromExtension, headerField, readRows } from './reader';
import type { InputEncoding } from './decode';
import type { Concurrency } from './in-flight';
import { type JournalHolder, journalHolder, lockJournal } from './journal-lock';
import { RecordIndex, entryOf } from './records';
import type { UnknownLookup } from './unknown-rows';
import { importEnding } from './outcome';
import { STOPPING_LINE, endingError, ignoredColumnsLine, invalidInputError, invalidRowLine, journalBusyError, journalInUseLine, journalWaitLine, moreInvalidLine, resumeLine, unwritableError } from '../output/import-end';
import { noStatusLine } from '../output/no-status';
import { rowWords, targetLabel } from '../output/unknown-rows';

/**
 * `pets add --file`: validate every row and look it up in the records of the
 * target, then send the rows not created before through the journal and the
 * runner, and report. The steps, each in its module:
 *   input.ts   the bytes, read twice (stdin spooled)
 *   reader.ts  formats, row/line numbers, NewPet validation, the id column
 *   decode.ts, delimiter.ts  encodings, the CSV delimiter
 *   records.ts row identity, and what the records say to do with a row
 *   plan.ts    the first pass (counts, ids used twice) and the sending pass's plan
 *   unknown-rows.ts, unknown-match.ts  --retry-unknown: the listing, and the rows found in it
 *   journal.ts the records, durable, per target
 *   journal-lock.ts  one import at a time per journal
 *   runner.ts  concurrency, interrupts, per-row outcomes
 *   outcome.ts how the import ended, and its exit code
 *   output/bulk.ts, output/import-progress.ts, output/import-end.ts  what the user sees
 */

export interface BulkAddOptions {
  /** A path, or `-` for standard input. */
  file: string;
  format?: InputFormat;
  /** --encoding: absent, a BOM names it, else UTF-8. */
  encoding?: InputEncoding;
  /** --delimiter: absent, the CSV header decides. */
  delimiter?: string;
  /** --id-column: the column holding each row's own id, which identifies it across imports. */
  idColumn?: string;
  columns?: ReadOptions['columns'];
  /** --new: every row is a new animal, whatever was created before. */
  fresh: boolean;
  /** --reserve: requests of every window left to other commands on the key. */
  reserve: number;
  dryRun: boolean;
  skipInvalid: boolean;
  concurrency: Concurrency;
  journal?: string;
  retryUnknown: boolean;
}

/** Invalid rows printed one per line before the rest are only counted. */
const INVALID_SHOWN = 20;

export async function bulkAdd(options: BulkAddOptions, ctx: Context): Promise<void> {
  if (ctx.globals.query !== undefined) {
    // The rows stream out as they complete; there is no one JSON result to query.
    throw new UsageError('--query does not apply to --file', "use -o ndjson and a filter such as jq: petctl pets add --file f.csv -o ndjson | jq 'select(.ok | not)'");
  }
  const sent = options.idColumn === undefined ? undefined : headerField(options.idColumn, options.columns);
  if (sent !== undefined) throw new UsageError(`--id-column ${options.idColumn} names a field that is sent (${sent})`, 'name the column that holds your own id for each animal, such as an intake number');
  keepYoungGenerationSmall();
  const input = await openInput(options.file, ctx.io.stdin, ctx.signal, stdinSpoolLimit(ctx.env));
  ctx.onCleanup(() => input.close());
  let format = options.format ?? (input.file === undefined ? undefined : formatFromExtension(input.file));
  const source = input.file === undefined ? '-' : path.resolve(input.file);

  const target = await ctx.target();
  const apiKey = requireKey(target);
  const { identity } = target;
  const targetId = await targetDigest(identity, apiKey);
  const journalPath = options.journal ?? (await defaultJournalPath(ctx.paths.dir, identity, apiKey));
  // Held before the journal is read, so that an import that waited reads what the other one wrote.
  const me: JournalHolder = { source: options.file === '-' ? '-' : path.basename(options.file) };
  if (options.dryRun) await noticeHolder(journalPath, ctx);
  else await holdJournal(journalPath, me, ctx);
  const index = new RecordIndex();
  await readJournal(journalPath, targetId, index);
  // A --new import that did not finish is resumed by the next --new import of the same input.
  const resumed = options.fresh ? index.openRun(source) : undefined;
  const plan: RecordsPlan = { source, byId: options.idColumn !== undefined, retryUnknown: options.retryUnknown, run: resumed, fresh: options.fresh && resumed === undefined };
  const targetName = targetLabel(target.baseUrl);

  const ignored: string[] = [];
  // How the bytes are read, the same in both passes.
  const reading: ReadOptions = { idColumn: options.idColumn, encoding: options.encoding, delimiter: options.delimiter, columns: options.columns };
  const read: ReadOptions = { ...reading, onIgnored: (name) => ignored.push(name) };
  let invalidShown = 0;

  // Pass 1: validate and plan everything before anything is sent.
  const scan = await scanRows(input.firstPass(), format, (chosen) => (format = chosen), read, index, plan, ctx.signal, {
    invalid(row, line, reason) {
      if (++invalidShown <= INVALID_SHOWN) ctx.line(invalidRowLine(row, line, reason));
    },
  });
  if (ctx.signal.aborted) throw new InterruptedError();
  if (scan.invalid > INVALID_SHOWN) ctx.line(moreInvalidLine(INVALID_SHOWN, scan.invalid));
  if (ignored.length > 0) ctx.notice(ignoredColumnsLine(ignored));

  const output = await import('../output/bulk');
  const refuse = () => invalidInputError(scan.invalid, scan.rows, options);
  if (scan.invalid > 0 && !options.skipInvalid && !options.dryRun) throw refuse();
  for (const changed of scan.changed) ctx.line(output.changedRowLine(changed));
  if (scan.skippedCount > 0 && (!ctx.globals.quiet || scan.toSend === 0)) {
    ctx.line(output.skippedLine(scan, (recorded) => (recorded === source ? input.label : recorded), resumed !== undefined));
  }

  if (options.dryRun) {
    const report = { rows: scan.rows, valid: scan.rows - scan.invalid, invalid: scan.invalid, wouldSend: scan.toSend, done: scan.skippedCount, unknown: scan.unknown, journal: journalPath };
    ctx.io.stdout.write(output.renderDryRun(report, ctx.globals.output));
    if (scan.invalid > 0) throw refuse();
    return;
  }

  // --retry-unknown: before anything is sent, the rows whose outcome is unknown are looked for.
  let lookup: UnknownLookup | undefined;
  if (scan.unknownRows.length > 0) {
    const { lookUpUnknownRows } = await import('./unknown-rows');
    lookup = await lookUpUnknownRows(ctx, scan.unknownRows, { journalPath, targetId, reserve: options.reserve, target: targetName, left: scan.toSend + scan.unknown });
  }
  const rows = plannedRows(readRows(input.secondPass(), format, undefined, reading), index, plan, scan.duplicates, lookup?.fates);
  const run = resumed ?? (options.fresh ? newRunId(ctx.now(), ctx.random()) : undefined);
  await sendRows(options, ctx, { rows, index, scan, journalPath, targetId, run, source, lookup, target: targetName });
}

/** One import at a time per journal: waits up to --max-wait for another to finish, and holds the journal until this one ends. */
async function holdJournal(journal: string, me: JournalHolder, ctx: Context): Promise<void> {
  const { maxWaitMs, verbose } = ctx.globals;
  const attempt = await lockJournal(journal, me, {
    maxWaitMs,
    monotonic: () => ctx.monotonic(),
    sleep: (ms) => ctx.sleep(ms),
    onWaiting(holder) {
      if (ctx.terminal.stderrIsTerminal || verbose) ctx.notice(journalWaitLine(holder));
    },
  });
  if ('busy' in attempt) throw journalBusyError(journal, attempt.busy, maxWaitMs);
  ctx.onCleanup(() => attempt.held.release());
}

/** A dry run does not wait: its figures are the journal's as it stands, and it says so when another import is writing it. */
async function noticeHolder(journal: string, ctx: Context): Promise<void> {
  const holder = await journalHolder(journal);
  if (holder) ctx.warn(journalInUseLine(journal, holder));
}

/**
 * Every row is garbage a moment after it is read, yet on a long stream V8 grows its young
 * generation to 2 x 16 MB anyway; keeping it at its start size keeps a 100 MB file's peak RSS
 * ~20 MB lower, for a few % more time in the scavenger. The flag is process-wide and V8 reads
 * it whenever it would grow, so it is set here, when an import starts, rather than at start-up
 * (bin/petctl.js), where it would tax every other command for a gain only an import has.
 */
function keepYoungGenerationSmall(): void {
  process.getBuiltinModule('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
}

function newRunId(now: number, random: number): string {
  return `${new Date(now).toISOString()}-${Math.floor(random * 0x10000).toString(16)}`;
}

interface SendPlan {
  rows: ReturnType<typeof plannedRows>;
  /** The records as read. */
  index: RecordIndex;
  scan: Scan;
  journalPath: string;
  targetId: string;
  /** The --new import these rows belong to. */
  run?: string;
  source: string;
  /** What --retry-unknown found. */
  lookup?: UnknownLookup;
  /** How hints name the target. */
  target: string;
}

async function sendRows(options: BulkAddOptions, ctx: Context, plan: SendPlan): Promise<void> {
  const [{ http }, { createPet }, { runImport }, output, { ImportProgress, summaryLine }, { renderOptions }, { loadTable }] = await Promise.all([
    ctx.api(),
    import('../api/endpoints/pets'),
    import('./runner'),
    import('../output/bulk'),
    import('../output/import-progress'),
    import('../output/settings'),
    import('../output/records'),
  ]);
  const { scan, lookup } = plan;
  const toSend = scan.toSend + (lookup?.resend ?? 0);
  // Before the first request: nothing created yet, every row left.
  const beforeSending = (error: unknown): never => {
    throw error instanceof JournalUnwritableError ? unwritableError(error, 0, toSend) : error;
  };
  const journal = await JournalWriter.open(plan.journalPath, plan.targetId, () => plan.index.entries()).catch(beforeSending);
  ctx.onCleanup(() => journal.close());
  const at = () => new Date(ctx.now()).toISOString();
  if (plan.run !== undefined && options.fresh) {
    await journal.append({ source: plan.source, state: 'begin', run: plan.run, at: at() }).catch(beforeSending);
  }
  // Found by --retry-unknown: recorded before any request, so a rerun skips them however this one ends.
  for (const { identity, pet } of lookup?.found ?? []) {
    await journal.append(entryOf(identity, { state: 'created', pet }, at(), plan.run)).catch(beforeSending);
  }

  const format = ctx.globals.output;
  const all: RowResult[] = [];
  const failures: RowFailure[] = [];
  const tally: Tally = emptyTally();
  const progress = new ImportProgress(ctx.terminal.status, {
    quiet: ctx.globals.quiet,
    verbose: ctx.globals.verbose,
    total: scan.rows,
    toSend,
    reserve: options.reserve,
    concurrency: options.concurrency,
    now: ctx.now,
  });
  const stop = new AbortController();
  const release = ctx.catchInterrupt(() => {
    stop.abort();
    progress.line(STOPPING_LINE);
  });
  const started = ctx.monotonic();
  /** Rows this run sent (whatever their answer). */
  let sent = 0;

  let outcome;
  try {
    outcome = await runImport({
      rows: plan.rows,
      words: rowWords(plan.target),
      journal,
      concurrency: options.concurrency,
      run: plan.run,
      now: ctx.now,
      monotonic: ctx.monotonic,
      reserve: options.reserve,
      send: (newPet, hooks) => createPet(http, newPet, hooks),
      sleep: (ms) => ctx.sleep(ms),
      stop: stop.signal,
      signal: ctx.signal,
      onResult(result, wasSent) {
        count(tally, result);
        if (wasSent) sent += 1;
        if (format === 'ndjson') {
          progress.beforeOutput();
          ctx.io.stdout.write(output.renderRowLine(result, ctx.terminal.stdoutIsTerminal));
        }
        else if (format === 'json') all.push(result);
        else if (!result.ok) failures.push(result);
        progress.row(result, wasSent);
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
    });
  } finally {
    release();
    progress.stop();
  }

  const left = scan.rows - outcome.reported;
  const stoppedBy = outcome.stoppedBy;
  // Everything is dealt with: the next --new import of this input is new animals again.
  if (plan.run !== undefined && left === 0 && !stoppedBy && !outcome.interrupted && tally.rejected + tally.unknown + tally.ambiguous + scan.invalid === 0) {
    await journal.append({ source: plan.source, state: 'end', run: plan.run, at: at() }).catch(() => {});
  }

  if (format === 'json') ctx.io.stdout.write(output.renderRowArray(all, ctx.terminal.stdoutIsTerminal));
  else if (format === 'table' || format === 'csv') {
    const options = renderOptions(ctx);
    if (options.tty) await loadTable();
    ctx.io.stdout.write(output.renderFailures(failures, format, options));
  }
  // Every row announced before sending (skipped, invalid) is counted, even when sending stopped before reaching it.
  const shown: Tally = { ...tally, skipped: Math.max(tally.skipped, scan.skippedCount), invalid: Math.max(tally.invalid, scan.invalid) };
  // Before the summary, so that an import ends with the summary (and, after Ctrl-C, how to go on).
  if (tally.noStatus > 0) ctx.notice(noStatusLine(tally.noStatus));
  ctx.notice(summaryLine(shown, { sendingMs: progress.sendingMs(), runMs: ctx.monotonic() - started }, plan.journalPath, options.retryUnknown));

  const ending = importEnding({ interrupted: outcome.interrupted, stoppedBy, rejected: tally.rejected, invalid: shown.invalid, unknown: tally.unknown, ambiguous: tally.ambiguous });
  // After Ctrl-C, how to go on, as the error line of any other stop says it.
  if (ending.kind === 'interrupted' && toSend > sent) ctx.line(resumeLine(toSend - sent));
  const error = endingError(ending, { ...shown, left }, ctx.now(), plan.target);
  if (error) throw error;
}
