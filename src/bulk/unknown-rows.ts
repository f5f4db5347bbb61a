import type { HttpClient } from '../api/client';
import { petPages } from '../api/endpoints/pages';
import { PetctlError } from '../errors';
import { LIMIT_MAX } from '../schemas/constants';
import type { Pet } from '../schemas/pet';
import { ImportStopped, stoppedBeforeSending } from './outcome';
import { type RowIdentity, type UnknownFate, type UnknownRow, contentKey, contentOf } from './records';

/**
 * --retry-unknown looks before it resends: it lists the target's animals (paced, leaving --reserve; one walk per
 * status when every row had one) and looks for each row sent without an answer by the fields it sent, among the
 * animals the journal does not account for. Rows that sent the same fields share their candidates: none, each is
 * sent again; one row and one candidate, found; else ambiguous (docs/bulk-import.md, "Outcome unknown, and
 * `--retry-unknown`"). A full last page without a next link stops the import (listing_incomplete), as does any failure.
 */

/** `fates` by row number; `found`: recorded as created before sending begins. */
export interface UnknownLookup {
  fates: Map<number, UnknownFate>;
  found: Array<{ identity: RowIdentity; pet: Pet }>;
  resend: number;
}

/** `accounted`: the ids the journal records as created; `left`: the rows the import would act on (for the error). */
interface LookupOptions {
  accounted: ReadonlySet<string>;
  reserve: number;
  baseUrl: string | undefined;
  left: number;
}

type LookupCount = 'rows' | 'animals' | 'pages' | 'found' | 'resend' | 'ambiguous';

export interface LookupReport {
  listing(): { wait(ms: number, why: string): Promise<void>; done(page: number, items: number): void; clear(): void };
  looked(facts: Record<LookupCount, number>, baseUrl: string | undefined): void;
  /** Nothing was sent and nothing recorded. */
  lookStopped(animals: number, page: number): void;
}

export async function lookUpUnknownRows(http: HttpClient, report: LookupReport, rows: readonly UnknownRow[], options: LookupOptions): Promise<UnknownLookup> {
  const matcher = new UnknownRowMatcher(rows, options.accounted);
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

/** The status a group's rows were sent with ('' for none). */
const statusOf = (group: { rows: UnknownRow[] }) => group.rows[0]!.identity.content[2];

/** The rule, pure. */
export class UnknownRowMatcher {
  /** By the fields sent; candidates by id as text (an animal seen twice, on pages that shifted, is one). */
  private readonly groups = new Map<string, { rows: UnknownRow[]; candidates: Map<string, Pet> }>();

  constructor(
    rows: readonly UnknownRow[],
    /** The ids (as text) the journal records as created. */
    private readonly accounted: ReadonlySet<string>,
  ) {
    for (const row of rows) {
      const key = contentKey(row.identity.content.slice(0, 3));
      const group = this.groups.get(key);
      if (group) group.rows.push(row);
      else this.groups.set(key, { rows: [row], candidates: new Map() });
    }
  }

  /** The statuses the rows were sent with ('' for none). */
  statuses(): Set<string> {
    return new Set([...this.groups.values()].map(statusOf));
  }

  see(pet: Pet): void {
    const group = this.groups.get(contentKey(contentOf(pet)));
    const id = String(pet.id);
    if (group && !this.accounted.has(id)) group.candidates.set(id, pet);
  }

  /** No further animal (of `status`, when given) can change an answer: every such row is ambiguous already. */
  settled(status?: string): boolean {
    return [...this.groups.values()].every((group) => (status !== undefined && statusOf(group) !== status) || group.candidates.size >= (group.rows.length > 1 ? 1 : 2));
  }

  fates(): Map<number, UnknownFate> {
    const fates = new Map<number, UnknownFate>();
    for (const { rows, candidates } of this.groups.values()) {
      const pets = [...candidates.values()];
      let fate: UnknownFate;
      if (pets.length === 0) fate = { action: 'send', resend: true };
      else if (pets.length === 1 && rows.length === 1) fate = { action: 'found', pet: pets[0]! };
      else fate = { action: 'ambiguous', candidates: pets.map((pet) => pet.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0)) };
      for (const row of rows) fates.set(row.row, fate);
    }
    return fates;
  }
}
