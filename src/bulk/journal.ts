import fs from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../digest';
import { writeFileAtomic } from '../locked-file';
import { ExitCode, PetctlError, UnsafeFileError, UsageError } from '../errors';
import { assertOwnFile, createExclusiveFile, openOwnFile } from '../file-safety';
import { parseJson, stringifyJson } from '../schemas/json';
import { describeFsError } from './fs-errors';
import { HEADER_START, JournalDamagedError, isCreationCutShort, isDamagedHeader, isWriteCutShort, journalLines } from './journal-damage';
import type { NewRunMark, RecordEntry, RecordIndex } from './records';

/**
 * The bulk import journal: an append-only NDJSON file, one per target (base
 * URL and key), recording what became of every row any import sent there, so
 * that a rerun, of the same file or of an edited one, sends only the rows not
 * created before (records.ts says how rows are matched):
 *
 *   {"petctlImportJournal":2,"target":"<sha256>"}                                  header
 *   {"source":"/abs/intake.csv","id":"A-17","content":["Rex","1","available",1],"state":"sent","at":"…"}
 *   {…,"state":"created","pet":{…}}       the answer: created
 *   {…,"state":"rejected","error":{…}}    the answer: the server's Error body
 *   {…,"state":"unsent"}                  a "sent" that turned out not to go (429, refused connection)
 *   {"source":"-","state":"begin","run":"…","at":"…"}   a --new import starts (and "end": nothing left to send)
 *
 * "sent" is written and fdatasync'ed before the request goes on the wire, the
 * answer before the row is reported; a row's last entry wins. A row whose last
 * entry is "sent" was sent and never answered: outcome unknown. A torn last
 * line (the process killed while writing) is ignored, which leaves the row at
 * its earlier, safer state. Any other line that is not an entry stops the
 * import before anything is sent (journal-damage.ts). A header of another
 * format is not this petctl's journal: it is left alone (unsafe_file).
 */

const FORMAT = 2;

/** The journal cannot be written: the import stops before another request goes out (exit 1). */
export class JournalUnwritableError extends PetctlError {
  constructor(
    readonly file: string,
    readonly reason: string,
    cause?: unknown,
    /** The file was deleted while open: written again whole (`restored`), or `lost`. */
    readonly deleted?: 'restored' | 'lost',
  ) {
    super(ExitCode.FAILURE, deleted ? `the journal ${file} ${reason}` : `cannot write the journal ${file}: ${reason}`, { code: 'journal_unwritable', cause });
  }
}

/** The system's reason, as a person reads it. */
function systemReason(error: unknown): string {
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

/**
 * Reads the journal at `file`, if there is one, into `index`. A line that is
 * neither an entry nor a write cut short stops it (journal-damage.ts).
 */
export async function readJournal(file: string, target: string, index: RecordIndex): Promise<void> {
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
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return 'absent';
    throw new UsageError(`cannot read the journal ${file}: ${systemReason(error)}`);
  }
  try {
    return await headerIn(handle, file);
  } catch (error) {
    if (error instanceof PetctlError) throw error;
    throw new UsageError(`cannot read the journal ${file}: ${systemReason(error)}`);
  } finally {
    await handle.close();
  }
}

/**
 * A file is petctl's journal only when its first line starts as a header does,
 * or is what a header cut short leaves; a first line that is a damaged header
 * is journal_damaged (journal-damage.ts); anything else is someone's file,
 * never truncated or written into. checkHeader reads the rest of the header.
 */
async function headerIn(handle: fs.promises.FileHandle, file: string): Promise<Exclude<HeaderState, 'absent'>> {
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
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    parsed = undefined;
  }
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

const headerLine = (target: string) => `${JSON.stringify({ petctlImportJournal: FORMAT, target })}\n`;
/** A header's length: a target is a SHA-256 in hex. */
const HEADER_BYTES = headerLine('0'.repeat(64)).length;

/**
 * Room kept beside the journal while an import runs. Should the disk fill up,
 * it is freed, so that the answers to the requests already on the wire can
 * still be recorded (a created animal the journal does not know of would be
 * sent again by a rerun) before the import stops.
 */
const SPARE_BYTES = 64 * 1024;

/** An open journal. Appends from concurrent rows are written together and synced once (group commit). */
export class JournalWriter {
  private queue: Array<{ entry: RecordEntry | NewRunMark; resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing = false;
  /** Set once a write failed: no "sent" is accepted after it, so no further request goes out. */
  private failure: JournalUnwritableError | undefined;
  /** A write stopped part-way: the next one starts on a new line. */
  private torn = false;

  /** What this run wrote, to write again should the file be deleted under it. */
  private readonly written: Array<RecordEntry | NewRunMark> = [];

  private constructor(
    readonly file: string,
    private readonly handle: fs.promises.FileHandle,
    private spare: string | undefined,
    private readonly target: string,
    private readonly earlier: () => Iterable<RecordEntry | NewRunMark>,
  ) {}

  /** Why the journal could not be written, once it could not. */
  get unwritable(): JournalUnwritableError | undefined {
    return this.failure;
  }

  /**
   * Opens (creating it 0600, in a 0700 directory, with its header) the journal at `file`.
   * `earlier`: the records it held when opened, written again with this run's should it be deleted.
   */
  static async open(file: string, target: string, earlier: () => Iterable<RecordEntry | NewRunMark> = () => []): Promise<JournalWriter> {
    const dir = path.dirname(file);
    let handle: fs.promises.FileHandle;
    let created = false;
    let spare: string | undefined = `${file}.spare`;
    // Before the journal is created: a refused spare room must leave nothing behind.
    assertOwnFile(spare);
    try {
      await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
      // Always in append mode: imports of other files to the same target may be appending to it too.
      handle = await openOwnFile(file);
      if ((await headerIn(handle, file)) === 'cut-short') {
        // New, or its creation was cut short (no whole header): start it afresh.
        await handle.truncate(0);
        created = true;
      }
    } catch (error) {
      if (error instanceof PetctlError) throw error;
      throw new JournalUnwritableError(file, systemReason(error), error);
    }
    try {
      if (created) {
        await writeAll(handle, headerLine(target));
        await handle.sync();
        // The new file's directory entry must survive a crash too.
        const dirHandle = await fs.promises.open(dir, 'r').catch(() => undefined);
        await dirHandle?.sync().catch(() => {});
        await dirHandle?.close();
      }
      await makeSpare(spare);
    } catch (error) {
      await handle.close();
      spare = undefined;
      if (error instanceof PetctlError) throw error;
      throw new JournalUnwritableError(file, systemReason(error), error);
    }
    const journal = new JournalWriter(file, handle, spare, target, earlier);
    if (!created) {
      // A torn last line (killed mid-write) must not swallow the next entry.
      const { size } = await handle.stat();
      const last = Buffer.alloc(1);
      if (size > 0 && (await handle.read(last, 0, 1, size - 1)).bytesRead === 1 && last[0] !== 10) journal.torn = true;
    }
    return journal;
  }

  /**
   * Writes the entry and syncs it to disk; resolves once it is durable. Once a
   * write has failed, a "sent" is refused at once (its request must not go),
   * while answers are still written, into the room kept spare.
   */
  append(entry: RecordEntry | NewRunMark): Promise<void> {
    if (this.failure && entry.state === 'sent') return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        await this.write(batch.map((item) => item.entry));
        for (const item of batch) item.resolve();
      } catch (error) {
        this.failure ??= error instanceof JournalUnwritableError ? error : new JournalUnwritableError(this.file, systemReason(error), error);
        if (!(await this.freeSpare())) {
          for (const item of batch) item.reject(this.failure);
          continue;
        }
        // With room again: record the answers, and turn each "sent" of the batch (which may be on disk
        // in part or whole) into "unsent": its request never goes, and a rerun must send it.
        const retry = batch.map((item) => (item.entry.state === 'sent' ? { ...item.entry, state: 'unsent' as const } : item.entry));
        try {
          await this.write(retry);
          for (const item of batch) (item.entry.state === 'sent' ? item.reject.bind(undefined, this.failure) : item.resolve)();
        } catch {
          for (const item of batch) item.reject(this.failure);
        }
      }
    }
    this.flushing = false;
  }

  private async write(entries: Array<RecordEntry | NewRunMark>): Promise<void> {
    const text = (this.torn ? '\n' : '') + entries.map((entry) => `${stringifyJson(entry)}\n`).join('');
    this.torn = true;
    await writeAll(this.handle, text);
    await this.handle.datasync();
    this.torn = false;
    // A journal deleted while open takes every write with it: nothing would be on disk for a rerun.
    // It is written again, whole, where it was; the import stops all the same.
    if ((await this.handle.stat()).nlink === 0) {
      // Its "sent" entries are refused (the error below): those requests never go.
      this.written.push(...entries.map((entry) => (entry.state === 'sent' ? { ...entry, state: 'unsent' as const } : entry)));
      const restored = this.restore();
      const reason = restored ? 'was deleted while the import ran; it was written again with every row on record' : 'was deleted while the import ran';
      throw new JournalUnwritableError(this.file, reason, undefined, restored ? 'restored' : 'lost');
    }
    this.written.push(...entries);
  }

  /** Writes the journal anew at its path: the records it held when opened, then this run's entries. */
  private restore(): boolean {
    try {
      writeWhole(this.file, this.target, [...this.earlier(), ...this.written]);
      return true;
    } catch {
      return false;
    }
  }

  private async freeSpare(): Promise<boolean> {
    if (this.spare === undefined) return false;
    const spare = this.spare;
    this.spare = undefined;
    try {
      await fs.promises.rm(spare);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
    if (this.spare !== undefined) await fs.promises.rm(this.spare, { force: true }).catch(() => {});
    this.spare = undefined;
  }
}

/**
 * Creates the spare room at `spare`: exclusively, never through a symlink.
 * One left by an import that was killed is replaced; one another import of
 * the same target makes at the same moment is shared; anything else there is
 * refused. One that cannot be filled (a full disk) is removed.
 */
async function makeSpare(spare: string): Promise<void> {
  assertOwnFile(spare);
  await fs.promises.rm(spare, { force: true });
  let handle: fs.promises.FileHandle;
  try {
    handle = await createExclusiveFile(spare);
  } catch (error) {
    // Another import to the same journal made it in between: the room is shared, as the journal is.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    assertOwnFile(spare);
    return;
  }
  try {
    await writeAll(handle, Buffer.alloc(SPARE_BYTES));
  } catch (error) {
    await fs.promises.rm(spare, { force: true }).catch(() => {});
    throw error;
  } finally {
    await handle.close();
  }
}

async function writeAll(handle: fs.promises.FileHandle, text: string | Buffer): Promise<void> {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  for (let offset = 0; offset < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

/** Writes a whole journal to `file` atomically (synced, then renamed over it), creating its directory if it is gone. */
function writeWhole(file: string, target: string, entries: Iterable<RecordEntry | NewRunMark>): void {
  writeFileAtomic(file, headerLine(target) + [...entries].map((entry) => `${stringifyJson(entry)}\n`).join(''));
}
