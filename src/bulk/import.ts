import type { Context } from '../context';
import { ExitCode, InterruptedError, PetctlError, RateLimitError, UsageError } from '../errors';
import { requireKey } from '../config/target';
import { type RowFailure, type RowResult, type Tally, count, emptyTally } from './results';
import { openInput } from './input';
import { type JournalEntry, JournalWriter, defaultJournalPath, readJournal, targetDigest } from './journal';
import { type InputFormat, formatFromExtension, readRows } from './reader';
import { formatWhen } from '../output/time';

/**
 * `pets add --file`: validate every row, then send the valid ones through
 * the journal and the runner, and report. The steps, each in its module:
 *   input.ts   the bytes, read twice (stdin spooled), hashed
 *   reader.ts  formats, row/line numbers, NewPet validation
 *   journal.ts what became of each row, durable, for resuming
 *   runner.ts  concurrency, interrupts, per-row outcomes
 *   output/bulk.ts, output/import-progress.ts  what the user sees
 *
 * Exit codes when several apply: 130 (Ctrl-C) > 5 (rate limit stopped it) >
 * the code of another error that stopped it (4, 3, 7...) > 7 (a row's outcome
 * is unknown) > 6 (a row invalid or rejected) > 0.
 */

export interface BulkAddOptions {
  /** A path, or `-` for standard input. */
  file: string;
  format?: InputFormat;
  dryRun: boolean;
  skipInvalid: boolean;
  concurrency: number;
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
  // Every row is garbage a moment after it is read, yet on a long stream V8 grows its young
  // generation to 2 x 16 MB anyway; keeping it at its start size keeps a 100 MB file's peak RSS
  // ~20 MB lower, for a few % more time in the scavenger. (A flag V8 reads when it would grow.)
  process.getBuiltinModule('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
  const input = await openInput(options.file, ctx.io.stdin);
  ctx.onCleanup(() => input.close());
  let format = options.format ?? (input.file === undefined ? undefined : formatFromExtension(input.file));

  // Pass 1: validate everything (and hash the input) before anything is sent.
  let rows = 0;
  let invalid = 0;
  for await (const row of readRows(input.firstPass(), format, (chosen) => (format = chosen))) {
    if (ctx.signal.aborted) throw new InterruptedError();
    rows += 1;
    if (row.newPet !== undefined) continue;
    invalid += 1;
    if (invalid <= INVALID_SHOWN) ctx.io.stderr.write(`line ${row.line} (row ${row.row}): ${row.reason}\n`);
  }
  if (invalid > INVALID_SHOWN) ctx.io.stderr.write(`... and ${invalid - INVALID_SHOWN} more invalid rows (${invalid} in all)\n`);
  const refuse = () =>
    new PetctlError(ExitCode.REJECTED, `${plural(invalid, 'invalid row')} of ${rows}; nothing was sent`, {
      code: 'invalid_input',
      hint: 'fix them, or add --skip-invalid to send the valid rows and report the rest',
    });
  if (invalid > 0 && !options.skipInvalid && !options.dryRun) throw refuse();

  const target = await ctx.target();
  const apiKey = requireKey(target);
  const { identity } = target;
  const digest = input.digest();
  const journalPath = options.journal ?? defaultJournalPath(ctx.paths.dir, digest, identity, apiKey);
  const header = { input: digest, target: targetDigest(identity, apiKey) };
  const previous = await readJournal(journalPath, header);

  let done = 0;
  let unknown = 0;
  for (const entry of previous.values()) {
    if (entry.state === 'created') done += 1;
    else if (entry.state === 'sent') unknown += 1;
  }
  const toSend = rows - invalid - done - (options.retryUnknown ? 0 : unknown);

  if (options.dryRun) {
    await writeDryRun(ctx, { rows, valid: rows - invalid, invalid, wouldSend: toSend, done, unknown, journal: journalPath });
    if (invalid > 0) throw refuse();
    return;
  }

  await sendRows(options, ctx, { input: input.secondPass(), format, rows, toSend, previous, journalPath, header });
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

interface DryRunReport {
  rows: number;
  valid: number;
  invalid: number;
  wouldSend: number;
  done: number;
  unknown: number;
  journal: string;
}

async function writeDryRun(ctx: Context, report: DryRunReport): Promise<void> {
  const { output } = ctx.globals;
  if (output === 'json' || output === 'ndjson') {
    ctx.io.stdout.write(`${JSON.stringify({ dryRun: true, ...report }, null, output === 'json' ? 2 : undefined)}\n`);
  } else if (output === 'csv') {
    const { renderCsv } = await import('../output/csv');
    const keys = Object.keys(report) as Array<keyof DryRunReport>;
    ctx.io.stdout.write(renderCsv(keys.map((key) => ({ header: key, value: (row: DryRunReport) => String(row[key]) })), [report]));
  } else {
    ctx.io.stdout.write(
      `would send ${report.wouldSend} of ${report.rows} rows: ${report.done} already done, ${report.unknown} with an unknown outcome, ${report.invalid} invalid; journal ${report.journal}\n`,
    );
  }
}

interface SendPlan {
  input: AsyncIterable<Buffer>;
  format: InputFormat | undefined;
  rows: number;
  toSend: number;
  previous: ReadonlyMap<number, JournalEntry>;
  journalPath: string;
  header: { input: string; target: string };
}

async function sendRows(options: BulkAddOptions, ctx: Context, plan: SendPlan): Promise<void> {
  const [{ http }, { createPet }, { runImport }, output, { ImportProgress, summaryLine }, { renderOptions }] = await Promise.all([
    ctx.api(),
    import('../api/pets'),
    import('./runner'),
    import('../output/bulk'),
    import('../output/import-progress'),
    import('../output/settings'),
  ]);
  const journal = await JournalWriter.open(plan.journalPath, plan.header);
  ctx.onCleanup(() => journal.close());

  const format = ctx.globals.output;
  const all: RowResult[] = [];
  const failures: RowFailure[] = [];
  const tally: Tally = emptyTally();
  const progress = new ImportProgress(ctx.io.stderr, { quiet: ctx.globals.quiet, verbose: ctx.globals.verbose, total: plan.rows, toSend: plan.toSend, now: ctx.now });
  const stop = new AbortController();
  const release = ctx.catchInterrupt(() => {
    stop.abort();
    progress.line('petctl: stopping: no new requests; waiting for the ones in flight (Ctrl-C again to stop waiting)');
  });
  const started = ctx.now();

  let outcome;
  try {
    outcome = await runImport({
      rows: readRows(plan.input, plan.format),
      previous: plan.previous,
      journal,
      concurrency: options.concurrency,
      retryUnknown: options.retryUnknown,
      send: (newPet, hooks) => createPet(http, newPet, hooks),
      sleep: (ms) => ctx.sleep(ms),
      stop: stop.signal,
      signal: ctx.signal,
      onResult(result, sent) {
        count(tally, result);
        if (format === 'ndjson') ctx.io.stdout.write(output.renderRowLine(result));
        else if (format === 'json') all.push(result);
        else if (!result.ok) failures.push(result);
        progress.row(result, sent);
      },
      onAnswer: (status) => progress.answer(status),
      onWait: (ms, why) => {
        progress.waiting(ms);
        // Off a terminal there is no bar: a wait gets one line (one for all the requests waiting for it), so the import does not look stuck.
        if (ctx.io.stderr.isTTY !== true) ctx.announceWait(ms, why);
      },
      onWaited: () => progress.waited(),
    });
  } finally {
    release();
    progress.stop();
  }

  if (format === 'json') ctx.io.stdout.write(output.renderRowArray(all));
  else if (format === 'table' || format === 'csv') ctx.io.stdout.write(output.renderFailures(failures, format, renderOptions(ctx)));
  ctx.notice(summaryLine(tally, ctx.now() - started, plan.journalPath));

  const left = plan.rows - outcome.reported;
  const resume = `${plural(left, 'row')} not sent yet; rerun the same command to resume`;
  const stoppedBy = outcome.stoppedBy;
  if (outcome.interrupted || stoppedBy instanceof InterruptedError) throw new InterruptedError();
  if (stoppedBy instanceof RateLimitError) {
    // Not the core's own message: it speaks of one request ("nothing sent"), and rows may have been created.
    const when = stoppedBy.retryAt === undefined ? 'later' : formatWhen(stoppedBy.retryAt, ctx.now());
    throw new RateLimitError(
      `the rate limit stopped the import: ${stoppedBy.reason}; ${plural(tally.created, 'row')} created, ${left} left; resume ${when}: rerun the same command`,
      {
        code: stoppedBy.code,
        status: stoppedBy.status,
        body: stoppedBy.body,
        retryAt: stoppedBy.retryAt,
        reason: stoppedBy.reason,
        hint: stoppedBy.code === 'quota_exhausted' || stoppedBy.code === 'key_banned' ? 'the journal keeps what was created: the rerun sends only the rest' : 'raise --max-wait to wait longer; the journal keeps what was created',
      },
    );
  }
  if (stoppedBy) {
    throw new PetctlError(stoppedBy.exitCode, `${stoppedBy.message}; the import stopped, ${resume}`, {
      code: stoppedBy.code,
      status: stoppedBy.status,
      body: stoppedBy.body,
      hint: stoppedBy.hint,
    });
  }
  if (tally.unknown > 0) {
    throw new PetctlError(ExitCode.NETWORK, `${plural(tally.unknown, 'row')} sent without an answer: outcome unknown; they are never resent on their own`, {
      code: 'outcome_unknown',
      hint: 'check with petctl pets list; then rerun with --retry-unknown to send the missing ones again',
    });
  }
  if (tally.rejected + tally.invalid > 0) {
    throw new PetctlError(ExitCode.REJECTED, `${plural(tally.rejected, 'row')} rejected by the server, ${plural(tally.invalid, 'row')} invalid`, {
      code: tally.rejected > 0 ? 'rows_rejected' : 'invalid_row',
      hint: tally.rejected > 0 ? 'a rerun of the same command sends the rejected rows again; an edited file is a new input, so put corrected rows in a file of their own' : undefined,
    });
  }
}
