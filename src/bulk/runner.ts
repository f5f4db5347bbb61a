import { setMaxListeners } from 'node:events';
import { untilAborted } from '../api/clock';
import type { RequestHooks } from '../api/request';
import { type RateHeaders, parseRateHeaders } from '../api/limits/headers';
import { InterruptedError, InvalidResponseError, NetworkError, PetctlError, RateLimitError, RejectedError, ServiceError } from '../errors';
import type { NewPet, Pet } from '../schemas/pet';
import { type Concurrency, InFlightLimit, type LevelChange, type Ticket } from './in-flight';
import { JournalUnwritableError, type JournalWriter } from './journal';
import { type ImportFacts, type RowResult, ambiguous, created, failed, found } from './outcome';
import { invalidRow, resent, skipped, unknownOutcome } from './outcome';
import { type PlannedRow, type RecordEntry, type RecordState, type RowIdentity, entryOf } from './records';

/**
 * Each row's fate is journaled before it is reported and before its slot takes the next row. `stop` (the first
 * Ctrl-C) gives up requests waiting in the gate and awaits those on the wire; `signal` (a second Ctrl-C, SIGTERM)
 * aborts those too. A rate limit that cannot be waited out, an error that would fail every row, or an outcome
 * turned unknown stops sending the same way (docs/bulk-import.md, "Ctrl-C").
 */

/** Abort listeners one slot's request may hold on one signal at once: its attempt on the wire, its wait, the import's own. */
const LISTENERS_PER_SLOT = 3;

/** The words of a row's message that people act on (output/import-end.ts makes them). */
export interface RowWords {
  /** What --retry-unknown will do with a row whose outcome is unknown. */
  retryUnknown: string;
  /** Why a row that more than one animal could be was neither sent nor recorded. */
  ambiguous(candidates: Array<Pet['id']>): string;
}

export interface RunnerOptions {
  rows: AsyncIterable<PlannedRow>;
  words: RowWords;
  journal: JournalWriter;
  concurrency: Concurrency;
  run?: string;
  now(): number;
  /** The steady clock latencies are measured on (default: `now`). */
  monotonic?(): number;
  reserve?: number;
  send(newPet: NewPet, hooks: RequestHooks): Promise<Pet>;
  sleep(ms: number): Promise<void>;
  /** `stop`: the first Ctrl-C; `signal`: a second, or SIGTERM. */
  stop: AbortSignal;
  signal: AbortSignal;
  onResult(result: RowResult, sent: boolean): void | Promise<void>;
  onSend?(): void;
  onAnswer?(status: number, rate: RateHeaders): void;
  onWait?(ms: number, why: string): void;
  onWaited?(): void;
  onLevel?(change: LevelChange): void;
}

/** `reported`: every row not left for a rerun. */
type RunnerOutcome = Pick<ImportFacts, 'interrupted' | 'stoppedBy'> & { reported: number };

/** A journal that cannot be written is a fact the import goes on with. */
function unwritableOnly(error: unknown): JournalUnwritableError {
  if (error instanceof JournalUnwritableError) return error;
  throw error;
}

/** Thrown through the HTTP core to abandon a request that has not gone on the wire. */
class StopSending extends Error {}

export async function runImport(options: RunnerOptions): Promise<RunnerOutcome> {
  const { journal } = options;
  const record = (identity: RowIdentity, state: RecordState): RecordEntry => entryOf(identity, state, new Date(options.now()).toISOString(), options.run);
  const stopped = new AbortController();
  const halt = AbortSignal.any([options.stop, options.signal, stopped.signal]);
  let stoppedBy: PetctlError | undefined;
  let reported = 0;
  const stopWith = (error: PetctlError) => {
    stoppedBy ??= error;
    stopped.abort();
  };
  const limit = new InFlightLimit(options.concurrency, options.monotonic ?? options.now, options.reserve);
  // Node's default of 10 listeners would warn from an 11th slot on; a leak still warns.
  for (const signal of [options.stop, options.signal, halt]) setMaxListeners(LISTENERS_PER_SLOT * limit.ceiling + 10, signal);

  const report = async (result: RowResult, sent: boolean) => {
    reported += 1;
    await options.onResult(result, sent);
  };

  /** When the journal cannot take the answer, the row is still reported as it is, and sending stops. */
  const recordAnswer = async (entry: RecordEntry, result: RowResult) => {
    const unwritable = await journal.append(entry).then(() => undefined, unwritableOnly);
    await report(result, true);
    if (unwritable) stopWith(unwritable);
  };

  const sendRow = async (input: PlannedRow & { newPet: NewPet; identity: RowIdentity }) => {
    const { row, line, identity } = input;
    let journaledSent = false;
    let ticket: Ticket | undefined;
    const hooks: RequestHooks = {
      beforeSend: async () => {
        // Past the gate it holds a permit of the window: another request's rate limit is no reason to drop it.
        if (halt.aborted && !(stoppedBy instanceof RateLimitError && !options.stop.aborted && !options.signal.aborted)) throw new StopSending();
        await journal.append(record(identity, { state: 'sent' }));
        journaledSent = true;
        ticket = limit.sent();
        options.onSend?.();
      },
      onAnswer: (answer) => {
        const rate = parseRateHeaders(answer.header);
        const change = ticket && limit.answered(ticket, answer.status, rate.remaining);
        ticket = undefined;
        options.onAnswer?.(answer.status, rate);
        if (change) {
          options.onLevel?.(change);
          fill();
        }
      },
      wait: async (ms, why) => {
        // Only before a request goes out (the gate asked again after beforeSend) or between attempts.
        if (ticket) limit.ended();
        ticket = undefined;
        if (halt.aborted) throw new StopSending();
        options.onWait?.(ms, why);
        limit.waits();
        try {
          await untilAborted(options.sleep(ms), halt, () => new StopSending());
        } finally {
          limit.waited();
          options.onWaited?.();
        }
      },
      // Draw from the machine-wide budget from the first request: full rate, no 429 storm.
      paced: true,
      reserve: options.reserve,
    };
    let pet: Pet;
    try {
      pet = await options.send(input.newPet, hooks);
    } catch (error) {
      if (ticket) limit.ended();
      if (error instanceof RejectedError && error.status !== 0) {
        const body = error.body ?? { code: error.code, message: error.message, status: error.status };
        const rowError = { ...body, code: String(body.code), message: String(body.message), status: error.status };
        return recordAnswer(record(identity, { state: 'rejected', error: rowError }), failed(row, line, rowError));
      }
      // On the wire, the journal already says "sent": the answer is what is missing.
      const unanswered = ticket !== undefined && (error instanceof InterruptedError || (error instanceof NetworkError && error.sent));
      // After a 5xx or a malformed 2xx to a POST the animal may exist; a 507 (RFC 4918 §11.5) says nothing was stored.
      const unusable = journaledSent && (error instanceof InvalidResponseError || (error instanceof ServiceError && error.status >= 500)) && error.status !== 507;
      if (unanswered || unusable) {
        const what = unanswered ? 'no answer came' : 'the answer was not usable';
        await report(unknownOutcome(row, line, `sent, but ${what} (${(error as PetctlError).message}); ${options.words.retryUnknown}`), true);
        return stopWith(error as PetctlError);
      }
      // Left at "sent" should this fail: a rerun reports the row unknown rather than risk sending it twice.
      if (journaledSent) await journal.append(record(identity, { state: 'unsent' })).catch(unwritableOnly);
      if (error instanceof StopSending) return;
      if (error instanceof PetctlError) return stopWith(error);
      throw error;
    }
    const resend = input.plan?.action === 'send' && input.plan.resend === true;
    await recordAnswer(record(identity, { state: 'created', pet }), (resend ? resent : created)(row, line, pet));
  };

  const handle = async (input: PlannedRow) => {
    const { row, line, plan } = input;
    if (input.newPet === undefined || input.identity === undefined || plan === undefined) return report(invalidRow(row, line, input.reason ?? 'invalid'), false);
    if (plan.action === 'skip') return report(skipped(row, line, plan.record.pet, plan.record.at), false);
    if (plan.action === 'unknown') return report(unknownOutcome(row, line, `sent by an earlier run, which got no answer; ${options.words.retryUnknown}`), false);
    if (plan.action === 'found') return report(found(row, line, plan.pet), false);
    if (plan.action === 'ambiguous') return report(ambiguous(row, line, plan.candidates, options.words.ambiguous(plan.candidates)), false);
    await sendRow(input as PlannedRow & { newPet: NewPet; identity: RowIdentity });
  };

  const rows = options.rows[Symbol.asyncIterator]();
  let read = false;
  let running = 0;
  const slots: Array<Promise<void>> = [];
  const slot = async () => {
    try {
      // A slot beyond the level ends before its next row.
      while (!halt.aborted && running <= limit.level) {
        // Async generators queue concurrent next() calls, so slots share the rows safely.
        const next = await rows.next();
        if (next.done) read = true;
        if (next.done || halt.aborted) return;
        await handle(next.value);
      }
    } finally {
      running -= 1;
    }
  };
  /** Starts slots up to the level, only from a slot or the start below, so every one is awaited there. */
  function fill(): void {
    while (!read && !halt.aborted && running < limit.level) {
      running += 1;
      slots.push(slot());
    }
  }
  try {
    fill();
    let failure: { reason: unknown } | undefined;
    for (let i = 0; i < slots.length; i += 1) await slots[i]!.catch((reason: unknown) => void (failure ??= { reason }));
    if (failure) throw failure.reason;
  } finally {
    await rows.return?.(undefined);
  }
  return { stoppedBy, interrupted: options.stop.aborted || options.signal.aborted, reported };
}
