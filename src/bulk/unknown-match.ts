import type { Pet } from '../schemas/pet';
import { type Content, type RowIdentity, type RowPlan, contentKey, contentOf } from './records';

/**
 * --retry-unknown's rule, pure: a row sent without an answer is looked for by the fields it sent,
 * among the animals the journal does not account for. Rows that sent the same fields share their
 * candidates: none, each is sent again; one row and one candidate, found; else ambiguous
 * (docs/bulk-import.md, "Outcome unknown, and `--retry-unknown`").
 */

/** A row whose last record is "sent" (no answer came), as the scan found it. */
export interface UnknownRow {
  row: number;
  line: number;
  /** The row's identity, with the content it was sent with: a row found is recorded under it. */
  identity: RowIdentity;
  /** The fields the journal says were sent. */
  sent: Content;
}

/** The answer for one row: a found, resend or ambiguous plan. */
export type UnknownFate = Extract<RowPlan, { action: 'found' | 'ambiguous' } | { action: 'send' }>;

interface Group {
  rows: UnknownRow[];
  /** By id as text: an animal seen twice (pages that shifted) is one candidate. */
  candidates: Map<string, Pet>;
}

export class UnknownRowMatcher {
  private readonly groups = new Map<string, Group>();

  constructor(
    rows: readonly UnknownRow[],
    /** Ids (as text) of the animals the journal records as created. */
    private readonly accounted: ReadonlySet<string>,
  ) {
    for (const row of rows) {
      const key = contentKey(row.sent);
      const group = this.groups.get(key);
      if (group) group.rows.push(row);
      else this.groups.set(key, { rows: [row], candidates: new Map() });
    }
  }

  /** The statuses the rows were sent with ('' for none). */
  statuses(): Set<string> {
    return new Set([...this.groups.values()].map((group) => group.rows[0]!.sent[2]));
  }

  /** An animal of the listing: a candidate of the rows that sent its fields, unless the journal accounts for it. */
  see(pet: Pet): void {
    const group = this.groups.get(contentKey(contentOf(pet)));
    const id = String(pet.id);
    if (group && !this.accounted.has(id)) group.candidates.set(id, pet);
  }

  /** No further animal (of `status`, when given) can change an answer: every such row is ambiguous already. */
  settled(status?: string): boolean {
    return [...this.groups.values()].every((group) => (status !== undefined && group.rows[0]!.sent[2] !== status) || group.candidates.size >= (group.rows.length > 1 ? 1 : 2));
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
