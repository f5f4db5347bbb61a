import fs from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../digest';
import { PetctlError, UnsafeFileError, UsageError, describeFsError } from '../errors';
import { assertOwnFile } from '../file-safety';
import { parseJson } from '../schemas/json';
import { HEADER_START, JournalDamagedError, isCreationCutShort, isDamagedHeader, isWriteCutShort, journalLines, jsonValue } from './journal-damage';
import type { NewRunMark, RecordEntry, RecordIndex } from './records';

/**
 * The import journal's format, and reading it: an NDJSON file per target, a header and an entry per
 * step of a row (records.ts), the last one winning (docs/bulk-import.md, "The journal").
 */

const FORMAT = 2;

export function systemReason(error: unknown): string {
  return describeFsError(error, { ENOENT: 'its directory no longer exists (ENOENT)' });
}

/** The default journal: in petctl's state directory, named by the target (base URL identity and key). */
export async function defaultJournalPath(stateDir: string, targetIdentity: string, apiKey: string): Promise<string> {
  const name = (await sha256Hex(`petctl-import-records\n${targetIdentity}\n${apiKey}`)).slice(0, 32);
  return path.join(stateDir, 'imports', `${name}.ndjson`);
}

/** Identifies the server and key in a header without holding the key. */
export function targetDigest(targetIdentity: string, apiKey: string): Promise<string> {
  return sha256Hex(`petctl-import-target\n${targetIdentity}\n${apiKey}`);
}

/** Reads the journal at `file`, if there is one, into `index`. */
export async function readJournal(file: string, target: string, index: Pick<RecordIndex, 'add'>): Promise<void> {
  // Another user's journal, or one others can write, may have lost its "created" lines: never trusted.
  assertOwnFile(file);
  if ((await headerOf(file)) !== 'whole') return;
  let header = '';
  let number = 0;
  for await (const { text, ended } of journalLines(fs.createReadStream(file))) {
    number += 1;
    if (number === 1) {
      header = text;
      continue;
    }
    // The header is judged with the line after it at hand: entries after a line that is no header make it a damaged one.
    if (number === 2) checkHeader(file, header, target, text);
    const entry = parseEntry(text);
    if (entry) index.add(entry);
    else if (ended && !isWriteCutShort(text, ENTRY_START)) throw new JournalDamagedError(file, number);
  }
  if (number === 1) checkHeader(file, header, target, undefined);
}

type HeaderState = 'absent' | 'whole' | 'cut-short';

/** Whether the journal at `file` exists and has a whole first line, or its creation was cut short before that. */
async function headerOf(file: string): Promise<HeaderState> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(file, 'r');
    return await headerIn(handle, file);
  } catch (error) {
    if (handle === undefined && (error as { code?: string }).code === 'ENOENT') return 'absent';
    if (error instanceof PetctlError) throw error;
    throw new UsageError(`cannot read the journal ${file}: ${systemReason(error)}`);
  } finally {
    await handle?.close();
  }
}

/**
 * A file is petctl's journal only when its first line starts as a header does, or is what a header
 * cut short leaves; a damaged header is journal_damaged; anything else is someone's file, never written into.
 */
export async function headerIn(handle: fs.promises.FileHandle, file: string): Promise<Exclude<HeaderState, 'absent'>> {
  const head = Buffer.alloc(4096);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  const bytes = head.subarray(0, bytesRead);
  const text = bytes.toString('utf8');
  const whole = bytesRead === head.length || text.includes('\n');
  if (!whole && isCreationCutShort(bytes, HEADER_BYTES)) return 'cut-short';
  if (text.startsWith(HEADER_START)) return 'whole';
  const [first = '', next] = text.split('\n');
  if (isDamagedHeader(first, next, isEntry)) throw new JournalDamagedError(file, 1);
  throw new UnsafeFileError(file, { kind: 'not_journal' });
}

/** Checks the header is this format's, for this target. `next`: the line after it. */
function checkHeader(file: string, line: string, target: string, next: string | undefined): void {
  const parsed = jsonValue(line) as Record<string, unknown> | undefined;
  const version = parsed?.petctlImportJournal;
  if (parsed === undefined || version !== FORMAT) {
    // A header of a format this petctl does not know is not damage.
    if (version === undefined && isDamagedHeader(line, next, isEntry)) throw new JournalDamagedError(file, 1);
    throw new UnsafeFileError(file, { kind: 'not_journal' });
  }
  if (parsed.target !== target) {
    throw new UsageError(`the journal ${file} belongs to another base URL or API key`, 'choose another --journal path, or use the profile it was written for');
  }
}

/** How each entry's line begins, as petctl writes it (its first field): what a write cut short starts with. */
const ENTRY_START = '{"source":';

const isEntry = (line: string) => parseEntry(line) !== undefined;

const STATES = new Set(['sent', 'created', 'rejected', 'unsent', 'begin', 'end']);

function parseEntry(line: string): RecordEntry | NewRunMark | undefined {
  let value: unknown;
  try {
    value = parseJson(line);
  } catch {
    return undefined;
  }
  const entry = value as Partial<RecordEntry> & Partial<NewRunMark>;
  if (entry === null || typeof entry !== 'object' || typeof entry.source !== 'string' || typeof entry.state !== 'string' || !STATES.has(entry.state)) return undefined;
  if (entry.state === 'begin' || entry.state === 'end') return typeof entry.run === 'string' ? (entry as NewRunMark) : undefined;
  const content = entry.content;
  if (!Array.isArray(content) || content.length !== 4 || typeof content[3] !== 'number') return undefined;
  if (entry.id !== undefined && typeof entry.id !== 'string') return undefined;
  if (entry.state === 'created' && typeof (entry as { pet?: unknown }).pet !== 'object') return undefined;
  if (entry.state === 'rejected' && typeof (entry as { error?: unknown }).error !== 'object') return undefined;
  return entry as unknown as RecordEntry;
}

export const headerLine = (target: string) => `${JSON.stringify({ petctlImportJournal: FORMAT, target })}\n`;
/** A header's length: a target is a SHA-256 in hex. */
const HEADER_BYTES = headerLine('0'.repeat(64)).length;
