import { InterruptedError, type PetctlError, RateLimitError } from '../errors';
import type { JournalHolder } from './journal-lock';
import { type Tally, emptyTally } from './results';

/**
 * How an import ended, from what happened: the policy in one pure function. When several apply, the
 * first of: 130 (Ctrl-C), 5 (the rate limit), another error's code, 7 (an outcome unknown),
 * 6 (ambiguous), 6 (invalid or rejected), 0.
 */

export type ImportFacts = Pick<Tally, 'rejected' | 'invalid' | 'unknown' | 'ambiguous'> & {
  /** Ctrl-C (or SIGTERM) ended sending. */
  interrupted: boolean;
  stoppedBy?: PetctlError;
};

export type ImportEnding =
  | { kind: 'interrupted' | 'unknown' | 'ambiguous' | 'rejected' | 'done' }
  /** The journal or the rate-limit state file could not be written. */
  | { kind: 'unwritable'; error: PetctlError }
  | { kind: 'rate_limited'; error: RateLimitError }
  | { kind: 'stopped'; error: PetctlError };

/** The codes of the files an import must write to go on: the journal, the rate-limit state. */
const UNWRITABLE = new Set(['journal_unwritable', 'state_unwritable']);

export function importEnding({ interrupted, stoppedBy, rejected, invalid, unknown, ambiguous }: ImportFacts): ImportEnding {
  if (interrupted || stoppedBy instanceof InterruptedError) return { kind: 'interrupted' };
  if (stoppedBy !== undefined && UNWRITABLE.has(stoppedBy.code)) return { kind: 'unwritable', error: stoppedBy };
  if (stoppedBy instanceof RateLimitError) return { kind: 'rate_limited', error: stoppedBy };
  if (stoppedBy !== undefined) return { kind: 'stopped', error: stoppedBy };
  if (unknown > 0) return { kind: 'unknown' };
  if (ambiguous > 0) return { kind: 'ambiguous' };
  if (rejected + invalid > 0) return { kind: 'rejected' };
  return { kind: 'done' };
}

/** How an import that sent ended: the facts commands/pets/add-file.ts words. */
export interface ImportEnd {
  ending: ImportEnding;
  /** Every row counted, those announced before sending (skipped, invalid) too. */
  tally: Tally;
  /** Rows not reported: left for a rerun. */
  left: number;
  /** Rows to send that this run did not send. */
  notSent: number;
  runMs: number;
  journal: string;
}

/** Why an import stopped before it sent: facts, worded by output/import-end.ts's stopError. */
export type ImportStop =
  | { kind: 'invalid_input'; invalid: number; rows: number; skipInvalid: boolean; dryRun: boolean }
  | { kind: 'journal_busy'; journal: string; holder: JournalHolder; maxWaitMs: number }
  /** A page of --retry-unknown's listing as full as asked for came without a next link. */
  | { kind: 'listing_incomplete'; page: number; size: number; notFound: number }
  /** The journal could not be written, or --retry-unknown's listing stopped: `left` rows not sent. */
  | { kind: 'ended'; ending: ImportEnding; left: number };

export class ImportStopped extends Error {
  constructor(readonly stop: ImportStop) {
    super(`the import stopped: ${stop.kind}`);
  }
}

/** `error` stopped the import before anything was sent: `left` rows not sent. */
export function stoppedBeforeSending(error: PetctlError, left: number): ImportStopped {
  const ending = importEnding({ ...emptyTally(), interrupted: false, stoppedBy: error });
  return new ImportStopped({ kind: 'ended', ending, left });
}
