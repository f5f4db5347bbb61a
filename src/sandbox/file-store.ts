import fs from 'node:fs';
import path from 'node:path';

import { openOwnFile } from '../file-safety';
import { withFileLock, writeFileAtomic } from '../locked-file';
import type { NewPet } from '../schemas/pet';
import { storeFull } from './errors';
import { isLog, LOG_HEADER_EXAMPLE, LogFormatError, logText, parseLog, parseLogLines, storedPet } from './pet-log';
import { PetTable, numberNewPets, type Page, type StoredPet } from './pet-table';
import { sampleAnimals } from './seed';
import type { PetQuery, PetStore } from './store';

/**
 * The data file behind `--data`: an append-only log (see pet-log.ts), read
 * into memory (pet-table.ts) when the store opens.
 *
 * Durability: an add resolves only after its line is written and fsynced, so
 * an animal is acknowledged with 201 only once it is on disk. Adds that arrive
 * while one is being written are written together by the next write (group
 * commit): one lock, one append, one fsync for all of them.
 *
 * Concurrency: two processes may share one file (two petctl commands on the
 * sandbox profile, each with its own in-process server). Appends take an
 * exclusive lock (proper-lockfile: the directory `<file>.lock`), first read
 * what other processes appended since (only the new bytes), and number the
 * new animals from the highest id in the file, up to the cap (`maxAnimals`):
 * nothing is lost, ids stay unique, and together they never pass the cap.
 * Before a read a process checks the file's size (one stat, at most once a
 * millisecond) and reads only what was appended since.
 *
 * A file that exists but is not a valid data file is an error naming the file:
 * it is never overwritten, so no animal is silently discarded. An empty file
 * (0 bytes or only white space) holds no animals and is treated as absent:
 * the store seeds it with the sample animals.
 */

/** How often, at most, reads look for what other processes appended. */
const CHECK_INTERVAL_MS = 1;

/** The data file exists but cannot be used. The message names the file. */
export class SandboxDataFileError extends Error {
  constructor(
    readonly file: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`sandbox data file ${file} ${problem}; fix or move it (the sandbox does not overwrite it)`, options);
    this.name = 'SandboxDataFileError';
  }
}

/** The data file stayed locked by another process for longer than the store waits. */
export class StoreBusyError extends Error {
  constructor(readonly file: string, options?: ErrorOptions) {
    super(`sandbox data file ${file} is locked by another process`, options);
    this.name = 'StoreBusyError';
  }
}

interface PendingAdd {
  newPet: NewPet;
  resolve: (pet: StoredPet) => void;
  reject: (error: unknown) => void;
}

/** A store over the data file; openFileStore (store.ts) opens it. */
export class FileStore implements PetStore {
  private table = new PetTable();
  /** Bytes of the file taken in (through the last complete line), its inode, and its line count. */
  private consumed = 0;
  private ino = -1;
  private lines = 0;
  /** Raised past every earlier version whenever the table is rebuilt, so versions only grow. */
  private versionBase = 0;
  private pending: PendingAdd[] = [];
  private appending = false;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private writing: Promise<void> | undefined;
  private handle: { file: fs.promises.FileHandle; ino: number } | undefined;

  constructor(readonly dataFile: string, private readonly maxAnimals: number) {}

  get version(): number {
    return this.versionBase + this.table.version;
  }

  async open(): Promise<void> {
    if (this.tryLoad()) return;
    await this.locked(() => {
      if (this.tryLoad()) return;
      const text = readBytes(this.dataFile)?.toString('utf8');
      if (text !== undefined && text.trim() !== '') throw new SandboxDataFileError(this.dataFile, `is not a petctl sandbox data file: its first line is not ${LOG_HEADER_EXAMPLE}`);
      writeDurably(this.dataFile, logText(sampleAnimals().map(storedPet)));
      this.load();
    });
  }

  refresh(): void {
    // While this process appends it holds the lock, so nobody else changes the file; and its own lines join the table once they are durable.
    if (this.appending) return;
    // Under load, one look at the file per millisecond is enough: another process's add takes longer than that to be acknowledged.
    const now = performance.now();
    if (now - this.checkedAt < CHECK_INTERVAL_MS) return;
    this.checkedAt = now;
    this.catchUp();
  }

  /** Takes in what changed in the file since it was last read; the file's size, undefined when it is gone. */
  private catchUp(): number | undefined {
    let stats: fs.Stats | undefined;
    try {
      stats = fs.statSync(this.dataFile, { throwIfNoEntry: false });
    } catch (error) {
      throw new SandboxDataFileError(this.dataFile, 'cannot be read', { cause: error });
    }
    // Deleted while we run: keep serving what we hold; the next add writes it all back.
    if (stats === undefined) return undefined;
    if (stats.ino !== this.ino || stats.size < this.consumed) {
      this.reload();
    } else if (stats.size > this.consumed) {
      this.readAppended(stats.size);
    }
    return stats.size;
  }

  page(query: PetQuery): Page {
    return this.table.page(query);
  }

  get(id: bigint): string | undefined {
    return this.table.get(id);
  }

  add(newPet: NewPet): Promise<StoredPet> {
    return new Promise((resolve, reject) => {
      this.pending.push({ newPet, resolve, reject });
      if (this.writing === undefined) this.startWriting();
    });
  }

  private startWriting(): void {
    this.writing = this.writePending().finally(() => {
      this.writing = undefined;
      // An add that came after the last batch was taken but before this ran.
      if (this.pending.length > 0) this.startWriting();
    });
  }

  async close(): Promise<void> {
    await this.writing;
    await this.handle?.file.close();
    this.handle = undefined;
  }

  /** Writes every pending add, in batches: each batch is one lock, one append and one fsync. */
  private async writePending(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      try {
        const stored = await this.locked(() => this.append(batch.map((entry) => entry.newPet)));
        batch.forEach((entry, index) => (index < stored.length ? entry.resolve(stored[index] as StoredPet) : entry.reject(storeFull(this.table.size, this.maxAnimals))));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
  }

  private async append(newPets: NewPet[]): Promise<StoredPet[]> {
    let size = this.catchUp();
    if (size === undefined) {
      writeDurably(this.dataFile, logText(this.table.all()));
      this.load();
      size = this.consumed;
    }
    const pets = numberNewPets(this.table.highestId, newPets.slice(0, Math.max(0, this.maxAnimals - this.table.size)));
    if (pets.length === 0) return pets;
    const text = pets.map((pet) => `${pet.json}\n`).join('');
    const handle = await this.openHandle();
    // Until the batch is counted in `consumed`, a change seen in the file is this append's own: not read back.
    this.appending = true;
    try {
      // Under the lock nobody else writes: bytes after the last complete line are an add a crash cut short, never acknowledged.
      if (size > this.consumed) fs.ftruncateSync(handle.fd, this.consumed);
      fs.writeSync(handle.fd, text);
      // The one wait of a batch: while the disk flushes, the next batch gathers.
      await handle.datasync();
    } catch (error) {
      // Not acknowledged, so not stored: cut off whatever part of the batch reached the file.
      await handle.truncate(this.consumed);
      throw error;
    } finally {
      this.appending = false;
    }
    for (const pet of pets) this.table.push(pet);
    this.consumed += Buffer.byteLength(text);
    this.lines += pets.length;
    return pets;
  }

  /** The data file, open for appending while its inode is the one read (opened the safe way: file-safety.ts). */
  private async openHandle(): Promise<fs.promises.FileHandle> {
    if (this.handle?.ino === this.ino) return this.handle.file;
    await this.handle?.file.close();
    this.handle = { file: await openOwnFile(this.dataFile), ino: this.ino };
    return this.handle.file;
  }

  private async locked<T>(fn: () => T | Promise<T>): Promise<T> {
    try {
      return await withFileLock(this.dataFile, fn);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new StoreBusyError(this.dataFile, { cause: error });
      throw error;
    }
  }

  /** Loads a file in the log layout; false when it is absent, empty or another layout. */
  private tryLoad(): boolean {
    const bytes = readBytes(this.dataFile);
    if (bytes === undefined || !isLog(bytes)) return false;
    this.loadBytes(bytes);
    return true;
  }

  private load(): void {
    const bytes = readBytes(this.dataFile);
    if (bytes === undefined) throw new SandboxDataFileError(this.dataFile, 'vanished while it was being opened');
    this.loadBytes(bytes);
  }

  private reload(): void {
    const bytes = readBytes(this.dataFile);
    if (bytes === undefined) return;
    if (!isLog(bytes)) throw new SandboxDataFileError(this.dataFile, 'was replaced by a file that is not a sandbox data log');
    this.loadBytes(bytes);
  }

  private loadBytes(bytes: Buffer): void {
    const parsed = this.parsed(() => parseLog(bytes));
    this.versionBase += this.table.version + 1;
    this.table = new PetTable(parsed.pets);
    this.consumed = parsed.consumed;
    this.lines = parsed.lines;
    this.ino = fs.statSync(this.dataFile).ino;
  }

  /** A layout error as the error that names the file. */
  private parsed<T>(parse: () => T): T {
    try {
      return parse();
    } catch (error) {
      throw error instanceof LogFormatError ? new SandboxDataFileError(this.dataFile, error.message) : error;
    }
  }

  private readAppended(size: number): void {
    const length = size - this.consumed;
    const bytes = Buffer.alloc(length);
    const fd = fs.openSync(this.dataFile, 'r');
    let read = 0;
    try {
      while (read < length) {
        const n = fs.readSync(fd, bytes, read, length - read, this.consumed + read);
        if (n === 0) break;
        read += n;
      }
    } finally {
      fs.closeSync(fd);
    }
    const tail = this.parsed(() => parseLogLines(bytes.subarray(0, read), 0, this.lines, this.table.highestId));
    for (const pet of tail.pets) this.table.push(pet);
    this.consumed += tail.consumed;
    this.lines += tail.lines;
  }
}

function readBytes(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SandboxDataFileError(file, 'cannot be read', { cause: error });
  }
}

/** Written atomically, then the directory is fsynced too: a new or renamed file survives a crash whole. */
function writeDurably(file: string, text: string): void {
  writeFileAtomic(file, text);
  try {
    const dirFd = fs.openSync(path.dirname(file), 'r');
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  } catch {
    // Some platforms (Windows) cannot open a directory; the rename is still atomic.
  }
}
