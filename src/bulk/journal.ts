import fs from 'node:fs';
import path from 'node:path';
import { makeDirs, writeFileAtomic } from '../locked-file';
import { FailureError, PetctlError } from '../errors';
import { assertOwnFile, createExclusiveFile, openOwnFile } from '../file-safety';
import { stringifyJson } from '../schemas/json';
import { headerIn, headerLine, systemReason } from './journal-format';
import type { NewRunMark, RecordEntry } from './records';

export { defaultJournalPath, readJournal, targetDigest } from './journal-format';

/** Writing the journal (its format: journal-format.ts; why each step: docs/bulk-import.md, "The journal"). */

/** The import stops before another request goes out (exit 1). */
export class JournalUnwritableError extends FailureError {
  constructor(
    readonly file: string,
    readonly reason: string,
    cause?: unknown,
    /** The file was deleted while open: written again whole (`restored`), or `lost`. */
    readonly deleted?: 'restored' | 'lost',
  ) {
    super(deleted ? `the journal ${file} ${reason}` : `cannot write the journal ${file}: ${reason}`, { code: 'journal_unwritable', cause });
  }
}

/** Room kept beside the journal, freed on a full disk so that the answers to the requests on the wire are still recorded. */
const SPARE_BYTES = 64 * 1024;

/** Appends from concurrent rows are written together and synced once (group commit). */
export class JournalWriter {
  private queue: Array<{ entry: RecordEntry | NewRunMark; resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing = false;
  /** Once a write failed no "sent" is accepted, so no further request goes out. */
  private failure: JournalUnwritableError | undefined;
  /** A write stopped part-way: the next one starts on a new line. */
  private torn = false;

  private constructor(
    readonly file: string,
    private readonly handle: fs.promises.FileHandle,
    private spare: string | undefined,
  ) {}

  /** Created if need be (0600, in a 0700 directory), with its header. */
  static async open(file: string, target: string): Promise<JournalWriter> {
    const dir = path.dirname(file);
    const spare = `${file}.spare`;
    // Before the journal is created: a refused spare room must leave nothing behind.
    assertOwnFile(spare);
    let handle: fs.promises.FileHandle | undefined;
    try {
      makeDirs(dir);
      // In append mode: every write lands at the end (one import writes at a time: journal-lock.ts).
      handle = await openOwnFile(file);
      if ((await headerIn(handle, file, target)) === 'cut-short') {
        await handle.truncate(0);
        await handle.writeFile(headerLine(target));
        await handle.sync();
        // Its directory entry must survive a crash too.
        const dirHandle = await fs.promises.open(dir, 'r').catch(() => undefined);
        await dirHandle?.sync().catch(() => {});
        await dirHandle?.close();
      }
      await makeSpare(spare);
      const journal = new JournalWriter(file, handle, spare);
      // A torn last line (killed mid-write) must not swallow the next entry.
      const { size } = await handle.stat();
      const last = Buffer.alloc(1);
      journal.torn = size > 0 && (await handle.read(last, 0, 1, size - 1)).bytesRead === 1 && last[0] !== 10;
      return journal;
    } catch (error) {
      await handle?.close();
      if (error instanceof PetctlError) throw error;
      throw new JournalUnwritableError(file, systemReason(error), error);
    }
  }

  /** Resolves once the entry is on disk. After a failed write a "sent" is refused; answers go into the spare room. */
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
        // With room again: the answers recorded, each "sent" (perhaps on disk) made "unsent": its request never goes.
        const retry = batch.map((item) => (item.entry.state === 'sent' ? { ...item.entry, state: 'unsent' as const } : item.entry));
        let recorded = await this.freeSpare();
        if (recorded) await this.write(retry).catch(() => (recorded = false));
        for (const item of batch) {
          if (recorded && item.entry.state !== 'sent') item.resolve();
          else item.reject(this.failure);
        }
      }
    }
    this.flushing = false;
  }

  private async write(entries: Array<RecordEntry | NewRunMark>): Promise<void> {
    const bytes = Buffer.from(entries.map(entryLine).join(''));
    const torn = this.torn;
    this.torn = true;
    await this.handle.writeFile(torn ? Buffer.concat([Buffer.from('\n'), bytes]) : bytes);
    await this.handle.datasync();
    this.torn = false;
    // Deleted while open, it would take every write with it: written again, its "sent" refused; the import stops.
    if ((await this.handle.stat()).nlink === 0) {
      const refused = entries.filter((entry) => entry.state === 'sent').map((entry) => entryLine({ ...entry, state: 'unsent' as const }));
      const restored = await this.restore(refused.join(''));
      const reason = restored ? 'was deleted while the import ran; it was written again with every row on record' : 'was deleted while the import ran';
      throw new JournalUnwritableError(this.file, reason, undefined, restored ? 'restored' : 'lost');
    }
  }

  /** Writes the journal anew from the deleted file's bytes (its handle still reads them), `more` appended first. */
  private async restore(more: string): Promise<boolean> {
    try {
      await this.handle.writeFile(more);
      const { size } = await this.handle.stat();
      const held = Buffer.alloc(size);
      for (let offset = 0; offset < size; ) {
        const { bytesRead } = await this.handle.read(held, offset, size - offset, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
      }
      writeFileAtomic(this.file, held);
      return true;
    } catch {
      return false;
    }
  }

  private async freeSpare(): Promise<boolean> {
    const spare = this.spare;
    this.spare = undefined;
    return spare !== undefined && (await fs.promises.rm(spare).then(() => true, () => false));
  }

  async close(): Promise<void> {
    await this.handle.close();
    await this.freeSpare();
  }
}

/** One a killed import left is replaced (the journal's lock says none runs); one that cannot be filled is removed. */
async function makeSpare(spare: string): Promise<void> {
  await fs.promises.rm(spare, { force: true });
  const handle = await createExclusiveFile(spare);
  try {
    await handle.writeFile(Buffer.alloc(SPARE_BYTES));
  } catch (error) {
    await fs.promises.rm(spare, { force: true }).catch(() => {});
    throw error;
  } finally {
    await handle.close();
  }
}

const entryLine = (entry: RecordEntry | NewRunMark) => `${stringifyJson(entry)}\n`;
