import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors';
import { parseJson, stringifyJson } from '../schemas/json';
import type { Pet } from '../schemas/pet';

/**
 * The bulk import journal: an append-only NDJSON file recording what became
 * of each row, so a rerun of the same command resumes exactly.
 *
 *   {"petctlImportJournal":1,"input":"<sha256>","target":"<sha256>"}   header
 *   {"row":3,"state":"sent"}                          written before the request goes on the wire
 *   {"row":3,"state":"created","pet":{...}}           the answer: created
 *   {"row":4,"state":"rejected","error":{...}}        the answer: the server's Error body
 *   {"row":5,"state":"unsent"}                        a "sent" that turned out not to go (429, refused connection)
 *
 * A row's last entry wins. Every entry is written and fdatasync'ed before
 * append() resolves, so a row is reported, and its slot sends again, only once
 * its entry is on disk. A row whose last entry is "sent" was sent and never
 * answered: outcome unknown. A torn last line (the process killed while
 * writing) is ignored, which leaves the row at its earlier, safer state.
 */

export type JournalEntry =
  | { row: number; state: 'sent' }
  | { row: number; state: 'created'; pet: Pet }
  | { row: number; state: 'rejected'; error: Record<string, unknown> }
  | { row: number; state: 'unsent' };

export interface JournalHeader {
  input: string;
  target: string;
}

const FORMAT = 1;

/** The default journal: in petctl's state directory, named by the input's hash, the base URL and the key. */
export function defaultJournalPath(stateDir: string, inputDigest: string, baseUrlIdentity: string, apiKey: string): string {
  const name = sha256Hex(`${inputDigest}\n${baseUrlIdentity}\n${apiKey}`).slice(0, 32);
  return path.join(stateDir, 'imports', `${name}.ndjson`);
}

/** Identifies the server and key in a header without holding the key. */
export function targetDigest(baseUrlIdentity: string, apiKey: string): string {
  return sha256Hex(`petctl-import-target\n${baseUrlIdentity}\n${apiKey}`);
}

function sha256Hex(text: string): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('hex');
}

/** Reads a journal: each row's last entry, or an empty map when there is none yet. */
export async function readJournal(file: string, header: JournalHeader): Promise<Map<number, JournalEntry>> {
  const entries = new Map<number, JournalEntry>();
  if (!(await hasHeader(file))) return entries;
  const stream = fs.createReadStream(file, { encoding: 'utf8' });
  const { createInterface } = process.getBuiltinModule('node:readline');
  let first = true;
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (first) {
      first = false;
      checkHeader(file, line, header);
      continue;
    }
    const entry = parseEntry(line);
    if (entry) entries.set(entry.row, entry);
  }
  return entries;
}

/** False when the journal does not exist, or its creation was cut short before the header line was whole. */
async function hasHeader(file: string): Promise<boolean> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return false;
    throw new UsageError(`cannot read the journal ${file}: ${(error as Error).message}`);
  }
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return bytesRead === head.length || head.subarray(0, bytesRead).includes(10);
  } finally {
    await handle.close();
  }
}

function checkHeader(file: string, line: string, header: JournalHeader): void {
  let parsed: Record<string, unknown> | undefined;
  try {
    parsed = JSON.parse(line) as Record<string, unknown>;
  } catch {
    parsed = undefined;
  }
  if (parsed?.petctlImportJournal !== FORMAT) {
    throw new UsageError(`${file} is not a petctl import journal`, 'choose another --journal path');
  }
  if (parsed.input !== header.input) {
    throw new UsageError(`the journal ${file} belongs to another input file; its rows would not match`, 'choose another --journal path, or import the file it was written for');
  }
  if (parsed.target !== header.target) {
    throw new UsageError(`the journal ${file} belongs to another base URL or API key`, 'choose another --journal path, or use the profile it was written for');
  }
}

function parseEntry(line: string): JournalEntry | undefined {
  let value: unknown;
  try {
    value = parseJson(line);
  } catch {
    return undefined;
  }
  const entry = value as Partial<JournalEntry> | null;
  if (entry === null || typeof entry !== 'object' || !Number.isSafeInteger(entry.row)) return undefined;
  if (entry.state === 'sent' || entry.state === 'unsent') return entry as JournalEntry;
  if (entry.state === 'created' && typeof (entry as { pet?: unknown }).pet === 'object') return entry as JournalEntry;
  if (entry.state === 'rejected' && typeof (entry as { error?: unknown }).error === 'object') return entry as JournalEntry;
  return undefined;
}

/** An open journal. Appends from concurrent rows are written together and synced once (group commit). */
export class JournalWriter {
  private queue: Array<{ line: string; resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing = false;

  private constructor(
    readonly file: string,
    private readonly handle: fs.promises.FileHandle,
  ) {}

  /** Opens (creating it 0600, in a 0700 directory, with its header) the journal at `file`. */
  static async open(file: string, header: JournalHeader): Promise<JournalWriter> {
    const dir = path.dirname(file);
    await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
    let handle: fs.promises.FileHandle;
    let created = false;
    try {
      if (!(await hasHeader(file))) {
        // New, or its creation was cut short (no whole header): start it afresh.
        handle = await fs.promises.open(file, 'w', 0o600);
        created = true;
      } else {
        handle = await fs.promises.open(file, 'a+', 0o600);
      }
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`cannot write the journal ${file}: ${(error as Error).message}`);
    }
    const journal = new JournalWriter(file, handle);
    if (created) {
      await handle.write(`${JSON.stringify({ petctlImportJournal: FORMAT, input: header.input, target: header.target })}\n`);
      await handle.sync();
      // The new file's directory entry must survive a crash too.
      const dirHandle = await fs.promises.open(dir, 'r').catch(() => undefined);
      await dirHandle?.sync().catch(() => {});
      await dirHandle?.close();
    } else {
      // A torn last line (killed mid-write) must not swallow the next entry.
      const { size } = await handle.stat();
      const last = Buffer.alloc(1);
      if (size > 0 && (await handle.read(last, 0, 1, size - 1)).bytesRead === 1 && last[0] !== 10) await journal.append(undefined);
    }
    return journal;
  }

  /** Writes the entry and syncs it to disk; resolves once it is durable. */
  append(entry: JournalEntry | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ line: entry === undefined ? '\n' : `${stringifyJson(entry)}\n`, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        await this.handle.write(batch.map((item) => item.line).join(''));
        await this.handle.datasync();
        for (const item of batch) item.resolve();
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    this.flushing = false;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
