import type { InputRow } from './reader';
import { type PlanOptions, type RecordEntry, type RecordIndex, type RowIdentity, type RowPlan, occurrences } from './records';
import type { PlannedRow } from './runner';
import type { UnknownFate, UnknownRow } from './unknown-match';

/** Every row is planned before anything is sent (the counts told first, --dry-run), and planned alike when sent. */

export interface RecordsPlan extends PlanOptions {
  /** The input: its absolute path, or `-`. */
  source: string;
  /** --id-column as given, which an id used twice names. */
  idColumn?: string;
  /** A --new import resumed: only its own records count. */
  run?: string;
  /** A fresh --new import: no record counts. */
  fresh: boolean;
  /** --retry-unknown: the scan keeps the rows whose outcome is unknown, to look for them. */
  retryUnknown: boolean;
}

/** A row created earlier whose other fields differ now (only with --id-column). */
export interface ChangedRow {
  row: number;
  line: number;
  id: string;
  record: RecordEntry & { state: 'created' };
}

export interface Scan {
  rows: number;
  invalid: number;
  /** Rows made invalid by an id used twice, and why (the sending pass reports them so too). */
  duplicates: Map<number, string>;
  toSend: number;
  /** Rows created earlier, by source: how many, and the time of the latest. */
  skipped: Map<string, { count: number; lastAt: string }>;
  skippedCount: number;
  changed: ChangedRow[];
  unknown: number;
  /** With --retry-unknown: the rows counted in `unknown`, in row order. */
  unknownRows: UnknownRow[];
}

export interface ScanReport {
  /** An invalid row, as it is found (not in row order for an id used twice). */
  invalid(row: number, line: number, reason: string): void;
}

export async function scanRows(rows: AsyncIterable<InputRow>, index: RecordIndex, plan: RecordsPlan, signal: AbortSignal, report: ScanReport): Promise<Scan> {
  const scan: Scan = { rows: 0, invalid: 0, duplicates: new Map(), toSend: 0, skipped: new Map(), skippedCount: 0, changed: [], unknown: 0, unknownRows: [] };
  // Without --id-column a row can only match a record of the same content: count occurrences of those alone.
  const identify = occurrences(plan.byId ? undefined : (content) => !plan.fresh && index.hasContent(plan.source, content));
  // With --id-column: every id seen, to find one used twice; the counts are made at the end, without those rows.
  const byId = new Map<string, { row: number; line: number; identity: RowIdentity | undefined; plan: RowPlan; duplicate: boolean }>();
  const tally = (rowPlan: RowPlan, row: number, line: number, identity: RowIdentity | undefined) => {
    if (rowPlan.action === 'send') scan.toSend += 1;
    else if (rowPlan.action === 'unknown') {
      scan.unknown += 1;
      // Recorded as found with the content it was sent with, so that a later run tells the row changed (--id-column).
      const { content } = rowPlan.record;
      if (plan.retryUnknown) scan.unknownRows.push({ row, line, identity: { ...identity!, content }, sent: [content[0], content[1], content[2]] });
    } else if (rowPlan.action === 'skip') {
      scan.skippedCount += 1;
      const { source, at } = rowPlan.record;
      const before = scan.skipped.get(source);
      const lastAt = before && before.lastAt > at ? before.lastAt : at;
      scan.skipped.set(source, { count: (before?.count ?? 0) + 1, lastAt });
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
    if (duplicate !== undefined) {
      yield { row: row.row, line: row.line, reason: duplicate };
      continue;
    }
    if (row.newPet === undefined) {
      yield row;
      continue;
    }
    const identity: RowIdentity = identify(plan.source, row.newPet, row.rowId)!;
    const rowPlan = index.plan(identity, plan);
    yield { ...row, identity, plan: (rowPlan.action === 'unknown' && fates?.get(row.row)) || rowPlan };
  }
}
