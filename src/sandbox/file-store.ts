import fs from 'node:fs';
import path from 'node:path';

import { limitsFileOf } from '../config/paths';
import { assertOwnFile, openOwnFile, usingFd } from '../file-safety';
import { withFileLock, writeFileAtomic } from '../locked-file';
import { INT64_MAX, INT64_MIN, PET_STATUSES, type PetStatus } from '../schemas/constants';
import { parseJson } from '../schemas/json';
import { STATUS_RULE } from '../schemas/new-pet-rules';
import type { NewPet } from '../schemas/pet';
import { DEFAULT_MAX_ANIMALS } from './defaults';
import { SandboxDataFileError } from './errors';
import { PetStore, sampleAnimals, storedPet, type StoredPet } from './store';

/**
 * The data file behind `--data` (docs/sandbox.md, "The data file"): a header line, then one animal a line in ascending ids.
 * A batch of adds takes its lock, reads what other processes appended, numbers and appends; it resolves once fdatasync has
 * the lines. A last line without its \n is an add a crash cut short: ignored, and cut off by the next add.
 */

const FORMAT = 'petctl-sandbox-pets';
const HEADER = `{"format":"${FORMAT}","version":2}`;
const NEWLINE = 0x0a;

/** Opens (and when missing or blank, creates) the store of a data file; rejects with SandboxDataFileError when it is not one. */
export async function openFileStore(dataFile: string, maxAnimals = DEFAULT_MAX_ANIMALS): Promise<PetStore> {
  const file = path.resolve(dataFile);
  // Both files are written, and their content trusted: refused (unsafe_file) before the sandbox serves anything.
  assertOwnFile(file);
  assertOwnFile(limitsFileOf(file));
  const store = new FileStore(file, maxAnimals);
  if (!store.load()) {
    await withFileLock(file, () => {
      if (store.load()) return;
      writeFileAtomic(file, logText(sampleAnimals().map((pet) => storedPet(pet).json)));
      store.load();
    });
  }
  return store;
}

class FileStore extends PetStore {
  /** Bytes taken in (through the last complete line: the header, then an animal a line), and the inode. */
  private consumed = 0;
  private ino = -1;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private pending: Array<{ newPet: NewPet; resolve: (pet: StoredPet) => void; reject: (error: unknown) => void }> = [];
  private writing: Promise<void> | undefined;

  constructor(override readonly dataFile: string, maxAnimals: number) {
    super([], maxAnimals);
  }

  /** Reads the whole file; false when it is missing or blank. */
  load(): boolean {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(this.dataFile);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw this.error('cannot be read', { cause: error });
    }
    const end = bytes.indexOf(NEWLINE);
    const header = headerOf(bytes.subarray(0, end === -1 ? bytes.length : end));
    if (header?.format !== FORMAT && bytes.toString('utf8').trim() === '') return false;
    if (header?.format !== FORMAT) throw this.error(`is not a petctl sandbox data file: its first line is not ${HEADER}`);
    if (header.version !== 2) throw this.error(`has an unknown format or version in its header line (version ${String(header.version)})`);
    if (end === -1) throw this.error('has no complete header line');
    this.pets = [];
    this.version += 1;
    this.consumed = end + 1;
    this.takeIn(bytes.subarray(end + 1));
    this.ino = fs.statSync(this.dataFile).ino;
    return true;
  }

  override refresh(): void {
    // One look a millisecond: another process's add takes longer than that to be acknowledged.
    const now = performance.now();
    if (now - this.checkedAt < 1) return;
    this.checkedAt = now;
    this.catchUp();
  }

  override add(newPet: NewPet): Promise<StoredPet> {
    return new Promise((resolve, reject) => {
      this.pending.push({ newPet, resolve, reject });
      this.writing ??= this.writePending();
    });
  }

  /** Adds that arrive while a batch is written go in the next one: one lock, append and fdatasync for them all. */
  private async writePending(): Promise<void> {
    for (let batch = this.pending.splice(0); batch.length > 0; batch = this.pending.splice(0)) {
      try {
        const { pets, file } = await withFileLock(this.dataFile, () => this.append(batch.map((entry) => entry.newPet)));
        // The one wait of a batch, outside the lock: while the disk flushes, the next batch gathers.
        if (file) await file.datasync().finally(() => file.close());
        batch.forEach((entry, index) => (index < pets.length ? entry.resolve(pets[index] as StoredPet) : entry.reject(this.full())));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.writing = undefined;
  }

  /** Under the lock; the file stays open for the batch's fdatasync. */
  private async append(newPets: NewPet[]): Promise<{ pets: StoredPet[]; file?: fs.promises.FileHandle }> {
    let size = this.catchUp();
    if (size === undefined) {
      // Deleted while we run: what we hold is written back.
      writeFileAtomic(this.dataFile, logText(this.pets.map((pet) => pet.json)));
      this.load();
      size = this.consumed;
    }
    const pets = this.numberNewPets(newPets);
    if (pets.length === 0) return { pets };
    const text = pets.map((pet) => `${pet.json}\n`).join('');
    const file = await openOwnFile(this.dataFile);
    try {
      // Under the lock nobody else writes: bytes after the last complete line are an add a crash cut short.
      if (size > this.consumed) fs.ftruncateSync(file.fd, this.consumed);
      fs.writeSync(file.fd, text);
    } catch (error) {
      try {
        fs.ftruncateSync(file.fd, this.consumed);
      } finally {
        await file.close();
      }
      throw error;
    }
    for (const pet of pets) this.push(pet);
    this.consumed += Buffer.byteLength(text);
    return { pets, file };
  }

  override async close(): Promise<void> {
    await this.writing;
  }

  /** Takes in what changed since the last read; the file's size, undefined when it is gone. */
  private catchUp(): number | undefined {
    let stats: fs.Stats | undefined;
    try {
      stats = fs.statSync(this.dataFile, { throwIfNoEntry: false });
    } catch (error) {
      throw this.error('cannot be read', { cause: error });
    }
    if (stats === undefined) return undefined;
    if (stats.ino !== this.ino || stats.size < this.consumed) {
      if (!this.load()) throw this.error('was replaced by a file that is not a sandbox data log');
    } else if (stats.size > this.consumed) {
      const bytes = Buffer.alloc(stats.size - this.consumed);
      const fd = fs.openSync(this.dataFile, 'r');
      const read = usingFd(fd, () => fs.readSync(fd, bytes, 0, bytes.length, this.consumed));
      this.takeIn(bytes.subarray(0, read));
    }
    return stats.size;
  }

  /** Takes in the animals on the complete lines of `bytes`, the file's bytes from `consumed` on. */
  private takeIn(bytes: Buffer): void {
    for (let start = 0, end = bytes.indexOf(NEWLINE); end !== -1; start = end + 1, end = bytes.indexOf(NEWLINE, start)) {
      const where = `line ${this.pets.length + 2}`;
      const pet = this.petOf(bytes.subarray(start, end).toString('utf8'), where);
      if (pet.id <= this.highestId) throw this.error(`has id ${pet.id} at ${where}, not above the id before it (${this.highestId})`);
      this.push(pet);
      this.consumed += end + 1 - start;
    }
  }

  private petOf(line: string, where: string): StoredPet {
    let pet: Record<string, unknown>;
    try {
      // JSON.parse is faster (docs/performance.md); only 16 or more digits in a row can be rounded.
      pet = /\d{16}/.test(line) ? (parseJson(line) as Record<string, unknown>) : JSON.parse(line);
    } catch (error) {
      throw this.error(`has a line that is not JSON at ${where} (${(error as Error).message})`);
    }
    const problem = petProblem(pet);
    if (problem) throw this.error(`has an invalid animal at ${where}: ${problem}`);
    return { id: BigInt(pet.id as number | bigint), status: pet.status as PetStatus | undefined, json: line };
  }

  private error(problem: string, options?: ErrorOptions): SandboxDataFileError {
    return new SandboxDataFileError(this.dataFile, problem, options);
  }
}

function headerOf(line: Buffer): { format?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(line.toString('utf8')) ?? undefined;
  } catch {
    return undefined;
  }
}

/** What is wrong with a stored animal: cheap checks, since the line itself is what is answered. */
function petProblem(pet: unknown): string | undefined {
  if (typeof pet !== 'object' || pet === null || Array.isArray(pet)) return 'the line is not an object';
  const { id, name, categoryId, status } = pet as Record<string, unknown>;
  if (!isInt64(id)) return 'id is not an int64';
  if (typeof name !== 'string') return 'name is not a string';
  if (!isInt64(categoryId)) return 'categoryId is not an int64';
  if (status !== undefined && !(PET_STATUSES as readonly unknown[]).includes(status)) return `status ${STATUS_RULE}`;
  return undefined;
}

function isInt64(value: unknown): boolean {
  if (typeof value === 'number') return Number.isSafeInteger(value);
  return typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX;
}

function logText(lines: readonly string[]): string {
  return `${HEADER}\n${lines.map((line) => `${line}\n`).join('')}`;
}
