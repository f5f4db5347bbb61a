import fs from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../digest';
import { FailureError, PetctlError, UnsafeFileError, UsageError, describeFsError } from '../errors';
import { assertOwnFile } from '../file-safety';
import { parseJson } from '../schemas/json';
import type { NewRunMark, RecordEntry, RecordIndex } from './records';

/**
 * The journal's format, and reading it: NDJSON, a header and an entry per step of a row, the last one winning. A
 * write a crash cut short leaves the start of a line, which recorded nothing an import relied on; any other line
 * that is not an entry may have been a "created": damage (docs/bulk-import.md, "The journal").
 */

const FORMAT = 2;

/** A line that is neither an entry nor a write cut short: the import stops before anything is sent (exit 1). */
class JournalDamagedError extends FailureError {
  constructor(
    readonly file: string,
    readonly line: number,
  ) {
    super(
      `the journal ${file} is damaged at line ${line}; rows it recorded may be sent twice. Move it aside and rerun with --new only if you know which animals exist`,
      { code: 'journal_damaged', hint: 'petctl pets list --all shows the animals the service holds' },
    );
  }
}

export function systemReason(error: unknown): string {
  return describeFsError(error, { ENOENT: 'its directory no longer exists (ENOENT)' });
}

/** In petctl's state directory, named by the target (base URL identity and key). */
export async function defaultJournalPath(stateDir: string, targetIdentity: string, apiKey: string): Promise<string> {
  const name = (await sha256Hex(`petctl-import-records\n${targetIdentity}\n${apiKey}`)).slice(0, 32);
  return path.join(stateDir, 'imports', `${name}.ndjson`);
}

/** Identifies the server and key in a header without holding the key. */
export function targetDigest(targetIdentity: string, apiKey: string): Promise<string> {
  return sha256Hex(`petctl-import-target\n${targetIdentity}\n${apiKey}`);
}

export async function readJournal(file: string, target: string, index: Pick<RecordIndex, 'add'>): Promise<void> {
  // Another user's journal, or one others can write, may have lost its "created" lines: never trusted.
  assertOwnFile(file);
  const handle = await fs.promises.open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw unreadable(file, error);
  });
  try {
    if (!handle || (await headerIn(handle, file, target)) !== 'whole') return;
    let number = 0;
    for await (const { text, ended } of journalLines(handle.createReadStream({ start: 0, autoClose: false }))) {
      number += 1;
      const entry = parseEntry(text);
      if (entry) index.add(entry);
      else if (number > 1 && ended && !isWriteCutShort(text, ENTRY_START)) throw new JournalDamagedError(file, number);
    }
  } catch (error) {
    throw error instanceof PetctlError ? error : unreadable(file, error);
  } finally {
    await handle?.close();
  }
}

const unreadable = (file: string, error: unknown) =>
  new UsageError(`cannot read the journal ${file}: ${systemReason(error)}`);

type HeaderState = 'whole' | 'cut-short';

/**
 * A file is petctl's journal, for `target`, only when its first line is this format's header, or what a header cut
 * short leaves; a damaged header is journal_damaged; anything else is someone's file, never written into.
 */
export async function headerIn(handle: fs.promises.FileHandle, file: string, target: string): Promise<HeaderState> {
  const head = Buffer.alloc(4096);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  const bytes = head.subarray(0, bytesRead);
  const text = bytes.toString('utf8');
  if (bytesRead < head.length && !text.includes('\n') && isCreationCutShort(bytes)) return 'cut-short';
  const [first = '', next] = text.split('\n');
  const header = jsonValue(first) as { petctlImportJournal?: unknown; target?: unknown } | undefined;
  if (header?.petctlImportJournal === FORMAT) {
    if (header.target === target) return 'whole';
    const hint = 'choose another --journal path, or use the profile it was written for';
    throw new UsageError(`the journal ${file} belongs to another base URL or API key`, hint);
  }
  // A header of a format this petctl does not know is not damage.
  if (header?.petctlImportJournal === undefined && isDamagedHeader(first, next)) throw new JournalDamagedError(file, 1);
  throw new UnsafeFileError(file, { kind: 'not_journal' });
}

/** Empty, a header's start, or zeros no longer than a header: a creation cut short. */
function isCreationCutShort(head: Buffer): boolean {
  if (head.every((byte) => byte === 0)) return head.length <= HEADER_BYTES;
  const text = head.toString('utf8');
  return HEADER_START.startsWith(text) || text.startsWith(HEADER_START);
}

/** A first line that is no header is a damaged one (zeros, a header's start that does not parse, entries after it). */
function isDamagedHeader(line: string, next: string | undefined): boolean {
  if (line.includes('\0')) return true;
  if (line.startsWith(HEADER_START) && scanJson(line) !== 'whole') return true;
  return next !== undefined && parseEntry(next) !== undefined;
}

/** What a write cut short leaves: nothing, or a start of `start…` whose JSON is not whole. */
export function isWriteCutShort(line: string, start: string): boolean {
  return line === '' || ((start.startsWith(line) || line.startsWith(start)) && scanJson(line) === 'cut');
}

/** The lines of a journal, each with whether a newline ended it (the last may lack it: a write cut short). */
async function* journalLines(chunks: AsyncIterable<Buffer>): AsyncGenerator<{ text: string; ended: boolean }> {
  let pending: Buffer[] = [];
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, end));
      yield { text: Buffer.concat(pending).toString('utf8'), ended: true };
      pending = [];
      start = end + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length > 0) yield { text: Buffer.concat(pending).toString('utf8'), ended: false };
}

/** What may end a line cut short before its open containers close: outside a string, and inside one. */
const ENDINGS = ['', '0', '"":0', ':0', 'rue', 'ue', 'e', 'alse', 'lse', 'se', 'ull', 'll', 'l'];
const STRING_ENDINGS = ['"', 'n"', '0"', '00"', '000"', '0000"'].flatMap((end) => [end, `${end}:0`]);

/** Undefined when `text` is not JSON (no JSON text parses to undefined). */
export function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const parses = (text: string) => jsonValue(text) !== undefined;

/** `cut`: one of the few ways to end `text` makes it whole JSON, as the platform's parser judges. */
function scanJson(text: string): 'whole' | 'cut' | 'invalid' {
  if (parses(text)) return 'whole';
  const closers: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') closers.unshift(c === '{' ? '}' : ']');
    else if (c === '}' || c === ']') closers.shift();
  }
  const close = closers.join('');
  return (inString ? STRING_ENDINGS : ENDINGS).some((end) => parses(text + end + close)) ? 'cut' : 'invalid';
}

/** How every journal's first line begins. */
const HEADER_START = '{"petctlImportJournal":';
/** How each entry's line begins, as petctl writes it: what a write cut short starts with. */
const ENTRY_START = '{"source":';

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
