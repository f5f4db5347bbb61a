import type { HttpClient } from '../api/client';
import { petPages } from '../api/endpoints/pages';
import { PetctlError } from '../errors';
import { LIMIT_MAX } from '../schemas/constants';
import type { Pet } from '../schemas/pet';
import { readJournal } from './journal';
import { ImportStopped, stoppedBeforeSending } from './outcome';
import { type RowIdentity, contentKey, contentOf, isRunMark } from './records';
import { type UnknownFate, type UnknownRow, UnknownRowMatcher } from './unknown-match';

/**
 * --retry-unknown looks before it resends: before anything is sent, it lists the target's animals
 * (`pets list --all`'s walk, paced, leaving --reserve; one walk per status when every row had one)
 * and settles each unknown row by unknown-match.ts's rule. A full last page without a next link
 * stops the import (listing_incomplete); so does any failure, with nothing sent or recorded.
 */

export interface UnknownLookup {
  /** What becomes of each unknown row, by row number. */
  fates: Map<number, UnknownFate>;
  /** The rows found: recorded as created before sending begins. */
  found: Array<{ identity: RowIdentity; pet: Pet }>;
  /** Rows not found: sent again. */
  resend: number;
}

interface LookupOptions {
  journalPath: string;
  targetId: string;
  /** --reserve: requests of every window left to other commands. */
  reserve: number;
  /** Where the animals are listed; undefined: the built-in sandbox. */
  baseUrl: string | undefined;
  /** Rows the import would act on, for the error if the listing stops. */
  left: number;
}

/** What the look tells, as facts. */
export interface LookupReport {
  /** The listing's progress: its wait, each page, and its end. */
  listing(): { wait(ms: number, why: string): Promise<void>; done(page: number, items: number): void; clear(): void };
  looked(facts: LookupFacts, baseUrl: string | undefined): void;
  /** The listing stopped after `animals` (on page `page`): nothing was sent and nothing recorded. */
  lookStopped(animals: number, page: number): void;
}

/** What the look found, before anything is sent. */
export interface LookupFacts {
  rows: number;
  animals: number;
  pages: number;
  found: number;
  resend: number;
  ambiguous: number;
}

export async function lookUpUnknownRows(http: HttpClient, report: LookupReport, rows: readonly UnknownRow[], options: LookupOptions): Promise<UnknownLookup> {
  const matcher = new UnknownRowMatcher(rows, await accountedIds(options, new Set(rows.map((row) => contentKey(row.sent)))));
  const statuses = matcher.statuses();
  // No filter lists only the animals without a status: one walk over every animal then.
  const walks = statuses.has('') ? [undefined] : [...statuses].sort();
  const progress = report.listing();
  const hooks = { paced: true, reserve: options.reserve, wait: progress.wait };
  let pages = 0;
  let animals = 0;
  let incomplete: { page: number; size: number } | undefined;
  try {
    for (const status of walks) {
      for await (const page of petPages(http, { limit: LIMIT_MAX, status: status as Pet['status'] }, { hooks })) {
        for (const pet of page.body) matcher.see(pet);
        pages += 1;
        animals += page.body.length;
        progress.done(pages, page.body.length);
        if (page.next === undefined && page.body.length >= LIMIT_MAX) incomplete = { page: page.number, size: page.body.length };
        if (matcher.settled(status)) break;
      }
    }
  } catch (error) {
    progress.clear();
    if (!(error instanceof PetctlError)) throw error;
    report.lookStopped(animals, pages + 1);
    throw stoppedBeforeSending(error, options.left);
  }
  progress.clear();

  const fates = matcher.fates();
  const found = rows.flatMap((row) => {
    const fate = fates.get(row.row)!;
    return fate.action === 'found' ? [{ identity: row.identity, pet: fate.pet }] : [];
  });
  const resend = rows.filter((row) => fates.get(row.row)!.action === 'send').length;
  if (incomplete && resend > 0) throw new ImportStopped({ kind: 'listing_incomplete', ...incomplete, notFound: resend });
  report.looked({ rows: rows.length, animals, pages, found: found.length, resend, ambiguous: rows.length - found.length - resend }, options.baseUrl);
  return { fates, found, resend };
}

/** The ids the journal records as created with these fields: every entry, not each row's last (a --new import records a row again). */
async function accountedIds(options: LookupOptions, contents: ReadonlySet<string>): Promise<Set<string>> {
  const ids = new Set<string>();
  await readJournal(options.journalPath, options.targetId, {
    add(entry) {
      if (!isRunMark(entry) && entry.state === 'created' && contents.has(contentKey(contentOf(entry.pet)))) ids.add(String(entry.pet.id));
    },
  });
  return ids;
}
