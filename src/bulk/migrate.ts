import { UsageError } from '../errors';
import type { BulkInput } from './input';
import { JournalWriter, type LegacyJournal, readJournal, rewriteJournal } from './journal';
import { type RecordsPlan, plannedRows } from './plan';
import { type InputFormat, type ReadOptions, readRows } from './reader';
import { type NewRunMark, type RecordEntry, RecordIndex } from './records';

/**
 * Journals of the previous format (version 1: one per input file, entries by
 * row number) are migrated once: the next import of that same input gives
 * each of their rows its identity in the input, records them in the target's
 * journal, and renames the old file to `….migrated`. A --journal file of the
 * old format is rewritten in place.
 */

/** A version 1 journal's rows as records, to write once in the new journal. */
export interface Migration {
  entries: RecordEntry[];
  /** The old journal to retire once they are written; undefined when it is the --journal file itself (rewritten). */
  file?: string;
}

export interface MigrationSource {
  /** What reading the records' own journal returned: set when that file is itself version 1 (a --journal path). */
  here?: LegacyJournal;
  /** Where version 1 kept this input's journal for this target (legacyJournalPath). */
  legacyPath: string;
  journalPath: string;
  targetId: string;
  input: BulkInput;
  format: InputFormat | undefined;
  plan: RecordsPlan;
  /** How the import reads its input (--id-column, --encoding, --delimiter). */
  reading: ReadOptions;
}

/** The migration this import must make before it plans, if a version 1 journal of its input exists. */
export async function pendingMigration(source: MigrationSource): Promise<Migration | undefined> {
  const legacy = source.here ? { journal: source.here, file: undefined } : await readLegacy(source.legacyPath, source.targetId);
  if (!legacy) return undefined;
  if (legacy.journal.input !== source.input.digest()) {
    throw new UsageError(`the journal ${source.journalPath} belongs to another input file; its rows would not match`, 'choose another --journal path, or import the file it was written for');
  }
  return { entries: await migratedEntries(legacy.journal, source), file: legacy.file };
}

/** Opens the records' journal for this import, writing a pending migration into it first. */
export async function openJournal(journalPath: string, targetId: string, earlier: () => Iterable<RecordEntry | NewRunMark>, migration?: Migration): Promise<JournalWriter> {
  if (migration && migration.file === undefined) await rewriteJournal(journalPath, targetId, migration.entries);
  const journal = await JournalWriter.open(journalPath, targetId, earlier);
  if (migration?.file !== undefined) {
    for (const entry of migration.entries) await journal.append(entry);
    const { rename } = process.getBuiltinModule('node:fs/promises');
    await rename(migration.file, `${migration.file}.migrated`).catch(() => {});
  }
  return journal;
}

async function readLegacy(file: string, targetId: string): Promise<{ journal: LegacyJournal; file: string } | undefined> {
  const journal = await readJournal(file, targetId, new RecordIndex());
  return journal ? { journal, file } : undefined;
}

/** Gives each row of a version 1 journal (kept by row number) its identity in the input it was written for. */
async function migratedEntries(legacy: LegacyJournal, source: MigrationSource): Promise<RecordEntry[]> {
  const entries: RecordEntry[] = [];
  const rows = readRows(source.input.secondPass(), source.format, undefined, source.reading);
  for await (const row of plannedRows(rows, new RecordIndex(), source.plan, new Map())) {
    const old = legacy.rows.get(row.row);
    if (old === undefined || row.identity === undefined) continue;
    const { row: _row, ...state } = old;
    entries.push({ ...row.identity, ...state, at: legacy.writtenAt });
  }
  return entries;
}
