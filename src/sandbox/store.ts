import fs from 'node:fs';
import path from 'node:path';

import { limitsFileOf } from '../config/paths';
import { assertOwnFile, openOwnFile } from '../file-safety';
import { withFileLock, writeFileAtomic } from '../locked-file';
import { stringifyJson } from '../schemas/json';
import { INT64_MAX } from '../schemas/constants';
import type { NewPet, Pet } from '../schemas/pet';
import { isLog, LOG_HEADER_EXAMPLE, LogFormatError, logText, parseLog, parseLogLines, storedPet } from './pet-log';
import { PetTable, type Page, type PageQuery, type StoredPet } from './pet-table';
import { sampleAnimals } from './seed';

/**
 * The sandbox's animal store, in memory or backed by a data file (`--data`).
 *
 * The data file is an append-only log (see pet-log.ts). The animals are held
 * in memory (pet-table.ts), as their JSON text, from the moment the store
 * opens; reads are served from memory and never re-parse a stored animal.
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
 * new animals from the highest id in the file: nothing is lost and ids stay
 * unique. Before a read a process checks the file's size (one stat, at most
 * once a millisecond) and reads only what was appended since.
 *
 * A file that exists but is not a valid data file is an error naming the file:
 * it is never overwritten, so no animal is silently discarded. An empty file
 * (0 bytes or only white space) holds no animals and is treated as absent:
 * the store seeds it with the sample animals.
 */

export type PetQuery = PageQuery;

/** How often, at most, reads look for what other processes appended. */
const CHECK_INTERVAL_MS = 1;

export interface PetStore {
  /** The absolute data file path; undefined for an in-memory store. */
  readonly dataFile: string | undefined;
  /** Changes whenever the animals change (after `refresh`), for caches of pages. */
  readonly version: number;
  /** Takes in what other processes appended to the data file. Throws SandboxDataFileError. */
  refresh(): void;
  /** A page of animals in ascending id order, filtered by status, after an id. */
  page(query: PetQuery): Page;
  /** The JSON text of the animal with this id. */
  get(id: bigint): string | undefined;
  /** Stores a new animal under the next id; resolves once it is durably stored. */
  add(newPet: NewPet): Promise<StoredPet>;
  /** Waits for adds in progress. */
  close(): Promise<void>;
}

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

export interface MemoryStoreOptions {
  /** The animals to start with (default: the sample animals). */
  pets?: Pet[];
}

export function createMemoryStore(options: MemoryStoreOptions = {}): PetStore {
  const table = new PetTable(sortedById((options.pets ?? sampleAnimals()).map(storedPet)));
  return {
    dataFile: undefined,
    get version() {
      return table.version;
    },
    refresh: () => {},
    page: (query) => table.page(query),
    get: (id) => table.get(id),
    add: async (newPet) => {
      const [pet] = numberNewPets(table.highestId, [newPet]);
      table.push(pet as StoredPet);
      return pet as StoredPet;
    },
    close: async () => {},
  };
}

/**
 * Opens (and when absent, creates with the sample animals) a file-backed
 * store. Rejects with SandboxDataFileError when the file is not a valid data
 * file.
 */
export async function openFileStore(dataFile: string): Promise<PetStore> {
  const file = path.resolve(dataFile);
  // Both files are written, and their content trusted: refused (unsafe_file) before the sandbox serves anything.
  assertOwnFile(file);
  assertOwnFile(limitsFileOf(file));
  const store = new FileStore(file);
  await store.open();
  return store;
}

interface PendingAdd {
  newPet: NewPet;
  resolve: (pet: StoredPet) => void;
  reject: (error: unknown) => void;
}

class FileStore implements PetStore {
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

  constructor(readonly dataFile: string) {}

  get version(): number {
    return this.versionBase + this.table.version;
  }

  async open(): Promise<void> {
    if (this.tryLoad()) return;
    await this.locked(() => {
      if (this.tryLoad()) return;
      const text = readBytes(this.dataFile)?.toString('utf8');
      if (text !== undefined && text.trim() !== '') throw new SandboxDataFileError(this.dataFile, `is not a petctl sandbox data file: its first line is not ${LOG_HEADER_EXAMPLE}`);
      this.writeWhole(sampleAnimals().map(storedPet));
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

  /** Takes in what changed in the file since it was last read. */
  private catchUp(): void {
    let stats: fs.Stats | undefined;
    try {
      stats = fs.statSync(this.dataFile, { throwIfNoEntry: false });
    } catch (error) {
      throw new SandboxDataFileError(this.dataFile, 'cannot be read', { cause: error });
    }
    // Deleted while we run: keep serving what we hold; the next add writes it all back.
    if (stats === undefined) return;
    if (stats.ino !== this.ino || stats.size < this.consumed) {
      this.reload();
    } else if (stats.size > this.consumed) {
      this.readAppended(stats.size);
    }
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
  }

  /** Writes every pending add, in batches: each batch is one lock, one append and one fsync. */
  private async writePending(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      try {
        const stored = await this.locked(() => this.append(batch.map((entry) => entry.newPet)));
        batch.forEach((entry, index) => entry.resolve(stored[index] as StoredPet));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
  }

  private async append(newPets: NewPet[]): Promise<StoredPet[]> {
    const stats = fs.statSync(this.dataFile, { throwIfNoEntry: false });
    if (stats === undefined) {
      this.writeWhole(this.table.all());
      this.load();
    } else {
      this.catchUp();
    }
    const pets = numberNewPets(this.table.highestId, newPets);
    const text = pets.map((pet) => `${pet.json}\n`).join('');
    // Until the batch is counted in `consumed`, a change seen in the file is this append's own: not read back.
    this.appending = true;
    try {
      // Written in place, so opened the safe way (file-safety.ts) and cut back through the descriptor, never by name.
      const handle = await openOwnFile(this.dataFile);
      try {
        // Under the lock nobody else writes: bytes after the last complete line are an add a crash cut short, never acknowledged.
        if ((await handle.stat()).size > this.consumed) await handle.truncate(this.consumed);
        await handle.write(text);
        await handle.datasync();
      } catch (error) {
        // Not acknowledged, so not stored: cut off whatever part of the batch reached the file.
        await handle.truncate(this.consumed);
        throw error;
      } finally {
        await handle.close();
      }
    } finally {
      this.appending = false;
    }
    for (const pet of pets) this.table.push(pet);
    this.consumed += Buffer.byteLength(text);
    this.lines += pets.length;
    return pets;
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
    let parsed;
    try {
      parsed = parseLog(bytes);
    } catch (error) {
      if (error instanceof LogFormatError) throw new SandboxDataFileError(this.dataFile, error.message);
      throw error;
    }
    this.versionBase += this.table.version + 1;
    this.table = new PetTable(parsed.pets);
    this.consumed = parsed.consumed;
    this.lines = parsed.lines;
    this.ino = fs.statSync(this.dataFile).ino;
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
    let tail;
    try {
      tail = parseLogLines(bytes.subarray(0, read), 0, this.lines, this.table.highestId);
    } catch (error) {
      if (error instanceof LogFormatError) throw new SandboxDataFileError(this.dataFile, error.message);
      throw error;
    }
    for (const pet of tail.pets) this.table.push(pet);
    this.consumed += tail.consumed;
    this.lines += tail.lines;
  }

  /** Writes a whole log atomically: temporary file, fsync, rename, fsync of the directory. */
  private writeWhole(pets: readonly StoredPet[]): void {
    writeDurably(this.dataFile, logText(pets));
  }
}

function numberNewPets(highestId: bigint, newPets: readonly NewPet[]): StoredPet[] {
  let id = highestId;
  return newPets.map((newPet) => {
    if (id >= INT64_MAX) throw new Error('no int64 id is left above the highest stored id');
    id += 1n;
    const pet = {
      id: int64Value(id),
      name: newPet.name,
      categoryId: newPet.categoryId,
      ...(newPet.status === undefined ? {} : { status: newPet.status }),
    };
    return { id, status: newPet.status, json: stringifyJson(pet) };
  });
}

/** The representation parseJson gives an int64: a number while safe, a bigint beyond 2^53. */
function int64Value(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

function sortedById(pets: StoredPet[]): StoredPet[] {
  return pets.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
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
