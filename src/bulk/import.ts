import path from 'node:path';
import type { PetctlPaths } from '../config/paths';
import type { HttpClient } from '../api/client';
import type { IO } from '../terminal';
import { InterruptedError } from '../errors';
import { type ResolvedTarget, requireKey } from '../config/target';
import { createPet } from '../api/endpoints/pets';
import { openInput } from './input';
import { JournalUnwritableError, JournalWriter, defaultJournalPath, readJournal, targetDigest } from './journal';
import { type RecordsPlan, RecordIndex, type Scan, type ScanReport, entryOf, plannedRows, scanRows } from './records';
import { type InputFormat, type ReadOptions, formatFromExtension, readRows } from './reader';
import type { Concurrency } from './in-flight';
import { type JournalHolder, journalHolder, lockJournal } from './journal-lock';
import { type RunnerOptions, runImport } from './runner';
import { type LookupReport, type UnknownLookup, lookUpUnknownRows } from './unknown-rows';
import { type ImportEnd, ImportStopped, type Tally, count, emptyTally } from './outcome';
import { importEnding, stoppedBeforeSending } from './outcome';

/** `pets add --file`: every row checked against the records before the rest are sent; told as facts (ImportReport). */

export interface BulkAddOptions extends Omit<ReadOptions, 'onIgnored'> {
  /** `-`: standard input. */
  file: string;
  format?: InputFormat;
  /** --new: every row is a new animal. */
  fresh: boolean;
  reserve: number;
  dryRun: boolean;
  skipInvalid: boolean;
  concurrency: Concurrency;
  journal?: string;
  retryUnknown: boolean;
}

/** What `--dry-run` found: the rows, and what an import would do with them. */
export type DryRunReport = Record<'rows' | 'valid' | 'invalid' | 'wouldSend' | 'done' | 'unknown', number> & {
  journal: string;
};

/** The runner's hooks an import's report takes, its first Ctrl-C (`stopping`) and the end of sending (`stop`). */
type SendReport = Pick<RunnerOptions, 'words' | 'onResult' | 'onSend' | 'onAnswer' | 'onWait' | 'onWaited' | 'onLevel'> & {
  stopping(): void;
  stop(): void;
};

export interface ImportReport extends ScanReport, LookupReport {
  /** Another import holds the journal: this one waits for it (`waiting`), or (a dry run) reads it as it stands. */
  journalHeld(journal: string, holder: JournalHolder, waiting: boolean): void;
  /** The first pass is over; `refused`: its invalid rows stop the import. `label` names a recorded source. */
  scanned(scan: Scan, facts: { ignored: readonly string[]; refused: boolean; resumed: boolean; label(source: string): string }): void;
  dryRun(report: DryRunReport): void;
  sending(facts: { total: number; toSend: number; baseUrl: string | undefined }): SendReport;
}

/** What an import takes of the command's Context: bulk/ names nothing above it. */
export interface ImportHost {
  io: Pick<IO, 'stdin'>;
  env: Readonly<NodeJS.ProcessEnv>;
  paths: PetctlPaths;
  globals: { maxWaitMs: number };
  signal: AbortSignal;
  now(): number;
  monotonic(): number;
  random(): number;
  sleep(ms: number): Promise<void>;
  target(): Promise<ResolvedTarget>;
  api(): Promise<{ http: HttpClient }>;
  onCleanup(fn: () => Promise<void> | void): void;
  catchInterrupt(handler: () => void): () => void;
}

/** Undefined after a dry run. */
export async function bulkAdd(options: BulkAddOptions, ctx: ImportHost, report: ImportReport): Promise<ImportEnd | undefined> {
  v8Flags('--semi-space-growth-factor=1');
  const input = await openInput(options.file, ctx.io.stdin, ctx.signal, ctx.env);
  ctx.onCleanup(() => input.close());
  const file = options.file === '-' ? undefined : options.file;
  let format = options.format ?? (file === undefined ? undefined : formatFromExtension(file));
  const source = file === undefined ? '-' : path.resolve(file);

  const target = await ctx.target();
  const apiKey = requireKey(target);
  const targetId = await targetDigest(target.identity, apiKey);
  const journalPath = options.journal ?? (await defaultJournalPath(ctx.paths.dir, target.identity, apiKey));
  // Held before the journal is read, so that an import that waited reads what the other one wrote.
  const me: JournalHolder = { source: file === undefined ? '-' : path.basename(file) };
  if (!options.dryRun) await holdJournal(journalPath, me, ctx, report);
  else {
    // A dry run does not wait: its figures are the journal's as it stands.
    const holder = await journalHolder(journalPath);
    if (holder) report.journalHeld(journalPath, holder, false);
  }
  const index = new RecordIndex(options.retryUnknown);
  await readJournal(journalPath, targetId, index);
  // A --new import that did not finish is resumed by the next --new import of the same input.
  const resumed = options.fresh ? index.openRun(source) : undefined;
  const { idColumn, retryUnknown } = options;
  const fresh = options.fresh && resumed === undefined;
  const plan: RecordsPlan = { source, idColumn, byId: idColumn !== undefined, retryUnknown, run: resumed, fresh };

  const ignored: string[] = [];
  const reading = { ...options, onIgnored: (name: string) => ignored.push(name) };
  const firstPass = readRows(input.firstPass(), format, (chosen) => (format = chosen), reading);
  const scan = await scanRows(firstPass, index, plan, ctx.signal, report);
  if (ctx.signal.aborted) throw new InterruptedError();
  const refused = scan.invalid > 0 && !options.skipInvalid && !options.dryRun;
  const label = (recorded: string) => (recorded === source ? (file ?? 'standard input') : recorded);
  report.scanned(scan, { ignored, refused, resumed: resumed !== undefined, label });
  const { invalid, rows, toSend, unknown } = scan;
  const { skipInvalid, dryRun } = options;
  if (dryRun) {
    const done = scan.skippedCount;
    report.dryRun({ rows, valid: rows - invalid, invalid, wouldSend: toSend, done, unknown, journal: journalPath });
  }
  // A dry run refuses invalid rows once its figures are told, --skip-invalid or not.
  if (refused || (dryRun && invalid > 0)) {
    throw new ImportStopped({ kind: 'invalid_input', invalid, rows, skipInvalid, dryRun });
  }
  if (dryRun) return undefined;

  const { http } = await ctx.api();
  const { baseUrl } = target;
  const { unknownRows, duplicates } = scan;
  const look = { accounted: index.createdIds, reserve: options.reserve, baseUrl, left: toSend + unknown };
  const lookup = unknownRows.length > 0 ? await lookUpUnknownRows(http, report, unknownRows, look) : undefined;
  const secondPass = readRows(input.secondPass(), format, undefined, options);
  const rowsToSend = plannedRows(secondPass, index, plan, duplicates, lookup?.fates);
  v8Flags('--optimize-for-size --no-opt');
  const run = resumed ?? (options.fresh ? `${new Date(ctx.now()).toISOString()}-${Math.floor(ctx.random() * 0x10000).toString(16)}` : undefined);
  const sending = { rows: rowsToSend, scan, run, source, lookup, http, journalPath, targetId, baseUrl };
  return sendRows(options, ctx, report, sending);
}

/** One import at a time per journal: waits up to --max-wait for another to finish, and holds the journal until this one ends. */
async function holdJournal(journal: string, me: JournalHolder, ctx: ImportHost, report: ImportReport): Promise<void> {
  const { maxWaitMs } = ctx.globals;
  const attempt = await lockJournal(journal, me, {
    maxWaitMs,
    monotonic: () => ctx.monotonic(),
    sleep: (ms) => ctx.sleep(ms),
    onWaiting: (holder) => report.journalHeld(journal, holder, true),
  });
  if ('busy' in attempt) throw new ImportStopped({ kind: 'journal_busy', journal, holder: attempt.busy, maxWaitMs });
  ctx.onCleanup(() => attempt.held.release());
}

/** Set as an import runs, not at start-up where they would tax every command (why each: docs/performance.md). */
function v8Flags(flags: string): void {
  process.getBuiltinModule('node:v8').setFlagsFromString(flags);
}

interface SendPlan {
  rows: ReturnType<typeof plannedRows>;
  scan: Scan;
  journalPath: string;
  targetId: string;
  run?: string;
  source: string;
  lookup?: UnknownLookup;
  baseUrl: string | undefined;
  http: HttpClient;
}

async function sendRows(options: BulkAddOptions, ctx: ImportHost, report: ImportReport, plan: SendPlan): Promise<ImportEnd> {
  const { scan, lookup, run, source } = plan;
  const toSend = scan.toSend + (lookup?.resend ?? 0);
  // Before the first request: nothing created yet, every row left.
  const beforeSending = (error: unknown): never => {
    throw error instanceof JournalUnwritableError ? stoppedBeforeSending(error, toSend) : error;
  };
  const journal = await JournalWriter.open(plan.journalPath, plan.targetId).catch(beforeSending);
  ctx.onCleanup(() => journal.close());
  const at = () => new Date(ctx.now()).toISOString();
  if (run !== undefined) await journal.append({ source, state: 'begin', run, at: at() }).catch(beforeSending);
  // Found by --retry-unknown: recorded before any request, so a rerun skips them however this one ends.
  for (const { identity, pet } of lookup?.found ?? []) {
    await journal.append(entryOf(identity, { state: 'created', pet }, at(), run)).catch(beforeSending);
  }

  const tally: Tally = emptyTally();
  const sending = report.sending({ total: scan.rows, toSend, baseUrl: plan.baseUrl });
  const stop = new AbortController();
  const release = ctx.catchInterrupt(() => {
    stop.abort();
    sending.stopping();
  });
  const started = ctx.monotonic();
  let sent = 0;

  const outcome = await runImport({
    ...sending,
    rows: plan.rows,
    journal,
    concurrency: options.concurrency,
    run,
    now: ctx.now,
    monotonic: ctx.monotonic,
    reserve: options.reserve,
    send: (newPet, hooks) => createPet(plan.http, newPet, hooks),
    sleep: (ms) => ctx.sleep(ms),
    stop: stop.signal,
    signal: ctx.signal,
    onResult(result, wasSent) {
      count(tally, result);
      if (wasSent) sent += 1;
      return sending.onResult(result, wasSent);
    },
  }).finally(() => {
    release();
    sending.stop();
  });

  const left = scan.rows - outcome.reported;
  const { stoppedBy, interrupted } = outcome;
  // Every row announced before sending (skipped, invalid) is counted, even when sending stopped before reaching it.
  const shown: Tally = { ...tally, skipped: Math.max(tally.skipped, scan.skippedCount), invalid: Math.max(tally.invalid, scan.invalid) };
  const ending = importEnding({ ...shown, interrupted, stoppedBy });
  // Everything is dealt with: the next --new import of this input is new animals again.
  const settled = run !== undefined && left === 0 && ending.kind === 'done';
  if (settled) await journal.append({ source, state: 'end', run, at: at() }).catch(() => {});
  return { ending, tally: shown, left, notSent: toSend - sent, runMs: ctx.monotonic() - started, journal: plan.journalPath };
}
