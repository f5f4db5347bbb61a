import type { NewPet, Pet } from '../schemas/pet';

/**
 * What an import remembers of every row it sent, per target: the journal's entries. A row is known
 * by the shelter's own id with --id-column (across sources), else by its content and its occurrence
 * among identical rows of its source, the input's absolute path or `-` (docs/bulk-import.md, "Which rows are sent").
 */

/** name, categoryId (exact, as text) and status ('' for none), as sent. */
export type Content = [name: string, categoryId: string, status: string];

export interface RowIdentity {
  source: string;
  id?: string;
  /** The content and its occurrence number (from 1) among identical rows of this input. */
  content: [...Content, number];
}

export type RecordState =
  | { state: 'sent' }
  | { state: 'created'; pet: Pet }
  | { state: 'rejected'; error: Record<string, unknown> }
  | { state: 'unsent' };

/** One journal line about one row. `run` marks the rows of a `--new` import (see NewRun). */
export type RecordEntry = RowIdentity & RecordState & { at: string; run?: string };

/** A `--new` import starting (`begin`) and ending with nothing left to send (`end`), per source. */
export interface NewRunMark {
  source: string;
  state: 'begin' | 'end';
  run: string;
  at: string;
}

export function isRunMark(entry: RecordEntry | NewRunMark): entry is NewRunMark {
  return entry.state === 'begin' || entry.state === 'end';
}

export function contentOf(newPet: NewPet): Content {
  return [newPet.name, String(newPet.categoryId), newPet.status ?? ''];
}

export const contentKey = (content: ReadonlyArray<string | number>) => JSON.stringify(content);

/** The journal entry saying what became of a row (`run`: the --new import it belongs to). */
export function entryOf(identity: RowIdentity, state: RecordState, at: string, run: string | undefined): RecordEntry {
  return { ...identity, ...state, at, ...(run === undefined ? {} : { run }) };
}

/** Numbers identical rows of one input in file order; `only` limits it to contents that can matter (no map of every row), the rest get no identity. */
export function occurrences(only?: (content: Content) => boolean): (source: string, newPet: NewPet, id: string | undefined) => RowIdentity | undefined {
  const counts = new Map<string, number>();
  return (source, newPet, id) => {
    const content = contentOf(newPet);
    if (only && !only(content)) return undefined;
    const key = contentKey(content);
    const occurrence = (counts.get(key) ?? 0) + 1;
    counts.set(key, occurrence);
    return { source, ...(id === undefined ? {} : { id }), content: [...content, occurrence] };
  };
}

/** What to do with a valid row, given the records (and, with --retry-unknown, the listing: unknown-rows.ts). */
export type RowPlan =
  /** `resend`: sent before without an answer, and not found among the target's animals. */
  | { action: 'send'; resend?: true }
  /** Created earlier: not sent. `changed` with --id-column when its other fields differ now. */
  | { action: 'skip'; record: RecordEntry & { state: 'created' }; changed: boolean }
  /** Sent earlier without an answer: left alone unless --retry-unknown. */
  | { action: 'unknown'; record: RecordEntry }
  /** --retry-unknown found its animal, and one only: recorded as created (before sending), not sent. */
  | { action: 'found'; pet: Pet }
  /** --retry-unknown found more than one animal it could be: neither sent nor recorded. */
  | { action: 'ambiguous'; candidates: Array<Pet['id']> };

export interface PlanOptions {
  /** --id-column: match by the shelter's id, across sources. */
  byId: boolean;
}

/** The records of one target, each identity's last entry. */
export class RecordIndex {
  /** By content within its source, and by id; again within the --new import they belong to (entryKey). */
  private readonly entries = new Map<string, RecordEntry>();
  /** Contents on record per source, without occurrence numbers (for Occurrences' filter). */
  private readonly contents = new Map<string, Set<string>>();
  /** Per source, the last --new import that began and did not end. */
  private readonly openRuns = new Map<string, string>();

  add(entry: RecordEntry | NewRunMark): void {
    if (isRunMark(entry)) {
      if (entry.state === 'begin') this.openRuns.set(entry.source, entry.run);
      else if (this.openRuns.get(entry.source) === entry.run) this.openRuns.delete(entry.source);
      return;
    }
    for (const run of entry.run === undefined ? [''] : ['', entry.run]) {
      this.entries.set(entryKey(run, entry), entry);
      if (entry.id !== undefined) this.entries.set(entryKey(run, { id: entry.id }), entry);
    }
    let contents = this.contents.get(entry.source);
    if (!contents) this.contents.set(entry.source, (contents = new Set()));
    contents.add(contentKey(entry.content.slice(0, 3)));
  }

  /** Whether any row of `source` is on record with this content (any occurrence). */
  hasContent(source: string, content: Content): boolean {
    return this.contents.get(source)?.has(contentKey(content)) ?? false;
  }

  /** The --new import of `source` that did not end, if any: the next --new run resumes it. */
  openRun(source: string): string | undefined {
    return this.openRuns.get(source);
  }

  /** The row's last entry: by id with --id-column, else by content within its source; within `run` when given. */
  lookup(identity: RowIdentity, byId: boolean, run?: string): RecordEntry | undefined {
    const byContent = this.entries.get(entryKey(run ?? '', identity));
    if (!byId) return byContent;
    const ofId = identity.id === undefined ? undefined : this.entries.get(entryKey(run ?? '', { id: identity.id }));
    // A row this source sent before --id-column was used has no id on record: its content still knows it.
    return run !== undefined ? ofId : (ofId ?? (byContent?.id === undefined ? byContent : undefined));
  }

  /** What to do with a row. `run`: the --new import being resumed (its rows only count), or a fresh --new (nothing counts). */
  plan(identity: RowIdentity | undefined, options: PlanOptions & { run?: string; fresh?: boolean }): RowPlan {
    if (identity === undefined || options.fresh) return { action: 'send' };
    const record = this.lookup(identity, options.byId, options.run);
    if (record?.state === 'created') return { action: 'skip', record, changed: options.byId && contentKey(record.content.slice(0, 3)) !== contentKey(identity.content.slice(0, 3)) };
    // Left alone; --retry-unknown looks for it among the target's animals (unknown-rows.ts) before deciding.
    if (record?.state === 'sent') return { action: 'unknown', record };
    return { action: 'send' };
  }
}

/** By id, or by content within its source; `run` '' for every import's entries. */
function entryKey(run: string, identity: { id?: string; source?: string; content?: RowIdentity['content'] }): string {
  if (identity.content === undefined) return `${run}\nid\n${identity.id}`;
  return `${run}\n${identity.source}\n${contentKey(identity.content)}`;
}
