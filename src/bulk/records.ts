import type { NewPet, Pet } from '../schemas/pet';
import type { InputRow } from './reader';

/**
 * What the journal remembers of each row sent, per target, and what that says to do with a row. A row is known by
 * the shelter's id with --id-column (across sources), else by its content and its occurrence among identical rows
 * of its source, the input's absolute path or `-` (docs/bulk-import.md, "Which rows are sent").
 */

/** name, categoryId (exact, as text) and status ('' for none), as sent. */
export type Content = [name: string, categoryId: string, status: string];

/** `content`: with its occurrence (from 1) among identical rows of the source. */
export interface RowIdentity {
  source: string;
  id?: string;
  content: [...Content, number];
}

export type RecordState =
  | { state: 'sent' }
  | { state: 'created'; pet: Pet }
  | { state: 'rejected'; error: Record<string, unknown> }
  | { state: 'unsent' };

/** One journal line about one row; `run`: the `--new` import it belongs to. */
export type RecordEntry = RowIdentity & RecordState & { at: string; run?: string };

/** A `--new` import starting (`begin`) and ending with nothing left to send (`end`), per source. */
export interface NewRunMark {
  source: string;
  state: 'begin' | 'end';
  run: string;
  at: string;
}

function isRunMark(entry: RecordEntry | NewRunMark): entry is NewRunMark {
  return entry.state === 'begin' || entry.state === 'end';
}

export function contentOf(newPet: NewPet): Content {
  return [newPet.name, String(newPet.categoryId), newPet.status ?? ''];
}

export const contentKey = (content: ReadonlyArray<string | number>) => JSON.stringify(content);

export function entryOf(identity: RowIdentity, state: RecordState, at: string, run: string | undefined): RecordEntry {
  return { ...identity, ...state, at, ...(run === undefined ? {} : { run }) };
}

/** Numbers identical rows of one input in file order; `only` keeps the map to contents that can matter. */
function occurrences(only?: (content: Content) => boolean) {
  const counts = new Map<string, number>();
  return (source: string, newPet: NewPet, id: string | undefined): RowIdentity | undefined => {
    const content = contentOf(newPet);
    if (only && !only(content)) return undefined;
    const key = contentKey(content);
    const occurrence = (counts.get(key) ?? 0) + 1;
    counts.set(key, occurrence);
    return { source, ...(id === undefined ? {} : { id }), content: [...content, occurrence] };
  };
}

/**
 * What to do with a valid row. `resend`: sent before without an answer, and not found by --retry-unknown. `skip`:
 * created earlier (`changed`: its other fields differ now, with --id-column). `unknown`: sent earlier without an
 * answer, left alone unless --retry-unknown, which `found` its one animal (recorded as created) or several.
 */
export type RowPlan =
  | { action: 'send'; resend?: true }
  | { action: 'skip'; record: RecordEntry & { state: 'created' }; changed: boolean }
  | { action: 'unknown'; record: RecordEntry }
  | { action: 'found'; pet: Pet }
  | { action: 'ambiguous'; candidates: Array<Pet['id']> };

export type UnknownFate = Extract<RowPlan, { action: 'found' | 'ambiguous' } | { action: 'send' }>;

/** A row whose last record is "sent" (no answer came): its identity with the content sent. */
export interface UnknownRow {
  row: number;
  line: number;
  identity: RowIdentity;
}

/** `byId`: --id-column, across sources; `run`: the --new import resumed (its rows only count); `fresh`: none. */
type PlanOptions = { byId: boolean; run?: string; fresh?: boolean };

/** Each identity's last entry, for one target. */
export class RecordIndex {
  /** Each entry by content within its source and by id, again within its --new import (entryKey). */
  private readonly entries = new Map<string, RecordEntry>();
  /** Per source: the contents on record, without occurrence numbers; the last --new import that did not end. */
  private readonly contents = new Map<string, Set<string>>();
  private readonly openRuns = new Map<string, string>();
  /** Every entry's, not each row's last (a --new import records a row again): --retry-unknown's look passes them by. */
  readonly createdIds = new Set<string>();

  /** `keepCreatedIds`: only --retry-unknown needs createdIds, so other imports do not hold a string per created row. */
  constructor(private readonly keepCreatedIds = false) {}

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
    if (this.keepCreatedIds && entry.state === 'created') this.createdIds.add(String(entry.pet.id));
    let contents = this.contents.get(entry.source);
    if (!contents) this.contents.set(entry.source, (contents = new Set()));
    contents.add(contentKey(entry.content.slice(0, 3)));
  }

  hasContent(source: string, content: Content): boolean {
    return this.contents.get(source)?.has(contentKey(content)) ?? false;
  }

  openRun(source: string): string | undefined {
    return this.openRuns.get(source);
  }

  lookup(identity: RowIdentity, byId: boolean, run?: string): RecordEntry | undefined {
    const byContent = this.entries.get(entryKey(run ?? '', identity));
    if (!byId) return byContent;
    const ofId = identity.id === undefined ? undefined : this.entries.get(entryKey(run ?? '', { id: identity.id }));
    // A row this source sent before --id-column was used has no id on record: its content still knows it.
    return run !== undefined ? ofId : (ofId ?? (byContent?.id === undefined ? byContent : undefined));
  }

  plan(identity: RowIdentity | undefined, options: PlanOptions): RowPlan {
    if (identity === undefined || options.fresh) return { action: 'send' };
    const record = this.lookup(identity, options.byId, options.run);
    if (record?.state === 'created') {
      const fields = (content: RowIdentity['content']) => contentKey(content.slice(0, 3));
      const changed = options.byId && fields(record.content) !== fields(identity.content);
      return { action: 'skip', record, changed };
    }
    if (record?.state === 'sent') return { action: 'unknown', record };
    return { action: 'send' };
  }
}

/** By id, or by content within its source; `run` '' for every import's entries. */
function entryKey(run: string, identity: { id?: string; source?: string; content?: RowIdentity['content'] }): string {
  if (identity.content === undefined) return `${run}\nid\n${identity.id}`;
  return `${run}\n${identity.source}\n${contentKey(identity.content)}`;
}

/** Every row is planned before anything is sent (the counts told first, --dry-run), and planned alike when sent. */
export interface RecordsPlan extends PlanOptions {
  source: string;
  /** As given, for an id used twice. */
  idColumn?: string;
  retryUnknown: boolean;
}

export interface PlannedRow extends InputRow {
  identity?: RowIdentity;
  plan?: RowPlan;
}

export interface Scan {
  rows: number;
  invalid: number;
  /** Rows made invalid by an id used twice, and why. */
  duplicates: Map<number, string>;
  toSend: number;
  /** Rows created earlier: how many, and each source's latest time. */
  skipped: Map<string, string>;
  skippedCount: number;
  changed: Array<{ row: number; line: number; id: string; record: RecordEntry & { state: 'created' } }>;
  unknown: number;
  /** With --retry-unknown: the rows counted in `unknown`, in row order. */
  unknownRows: UnknownRow[];
}

export interface ScanReport {
  /** As it is found (not in row order for an id used twice). */
  invalid(row: number, line: number, reason: string): void;
}

export async function scanRows(rows: AsyncIterable<InputRow>, index: RecordIndex, plan: RecordsPlan, signal: AbortSignal, report: ScanReport): Promise<Scan> {
  const scan: Scan = { rows: 0, invalid: 0, duplicates: new Map(), toSend: 0, skipped: new Map(), skippedCount: 0, changed: [], unknown: 0, unknownRows: [] };
  // Without --id-column a row can only match a record of the same content: count occurrences of those alone.
  const identify = occurrences(plan.byId ? undefined : (content) => !plan.fresh && index.hasContent(plan.source, content));
  // With --id-column: every id seen, to find one used twice; those rows are left out of the counts made at the end.
  const byId = new Map<string, { row: number; line: number; identity: RowIdentity | undefined; plan: RowPlan; duplicate: boolean }>();
  const tally = (rowPlan: RowPlan, row: number, line: number, identity: RowIdentity | undefined) => {
    if (rowPlan.action === 'send') scan.toSend += 1;
    else if (rowPlan.action === 'unknown') {
      scan.unknown += 1;
      // Found rows are recorded with the content sent, so that a later run tells the row changed (--id-column).
      const { content } = rowPlan.record;
      if (plan.retryUnknown) scan.unknownRows.push({ row, line, identity: { ...identity!, content } });
    } else if (rowPlan.action === 'skip') {
      scan.skippedCount += 1;
      const { source, at } = rowPlan.record;
      const before = scan.skipped.get(source);
      scan.skipped.set(source, before && before > at ? before : at);
    }
  };

  for await (const row of rows) {
    if (signal.aborted) break;
    scan.rows += 1;
    if (row.newPet === undefined) {
      scan.invalid += 1;
      report.invalid(row.row, row.line, row.reason ?? 'invalid');
      continue;
    }
    const identity = identify(plan.source, row.newPet, row.rowId);
    const rowPlan = index.plan(identity, plan);
    if (row.rowId === undefined) {
      tally(rowPlan, row.row, row.line, identity);
      continue;
    }
    const first = byId.get(row.rowId);
    if (first === undefined) {
      byId.set(row.rowId, { row: row.row, line: row.line, identity, plan: rowPlan, duplicate: false });
      continue;
    }
    // An id used twice: which row is the animal cannot be told, so neither is sent.
    const usedTwice = (one: { row: number; line: number }, other: { row: number; line: number }) => {
      const reason = `${plan.idColumn!.trim()} ${JSON.stringify(row.rowId)} is used twice (also line ${other.line}, row ${other.row})`;
      scan.duplicates.set(one.row, reason);
      scan.invalid += 1;
      report.invalid(one.row, one.line, reason);
    };
    if (!first.duplicate) usedTwice(first, row);
    first.duplicate = true;
    usedTwice(row, first);
  }
  for (const [id, seen] of byId) {
    if (seen.duplicate) continue;
    tally(seen.plan, seen.row, seen.line, seen.identity);
    if (seen.plan.action === 'skip' && seen.plan.changed) scan.changed.push({ row: seen.row, line: seen.line, id, record: seen.plan.record });
  }
  scan.unknownRows.sort((a, b) => a.row - b.row);
  return scan;
}

/** The sending pass's rows, planned as the scan planned them; `fates`: what --retry-unknown's listing decided. */
export async function* plannedRows(
  rows: AsyncIterable<InputRow>,
  index: RecordIndex,
  plan: RecordsPlan,
  duplicates: ReadonlyMap<number, string>,
  fates?: ReadonlyMap<number, UnknownFate>,
): AsyncGenerator<PlannedRow> {
  const identify = occurrences();
  for await (const row of rows) {
    const duplicate = duplicates.get(row.row);
    if (duplicate !== undefined) yield { row: row.row, line: row.line, reason: duplicate };
    else if (row.newPet === undefined) yield row;
    else {
      const identity = identify(plan.source, row.newPet, row.rowId)!;
      const rowPlan = index.plan(identity, plan);
      yield { ...row, identity, plan: (rowPlan.action === 'unknown' && fates?.get(row.row)) || rowPlan };
    }
  }
}
