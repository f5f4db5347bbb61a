import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod/mini';

import { withFileLock, writeFileAtomic } from '../config/locked-file';
import { parseJson, stringifyJson } from '../schemas/json';
import { INT64_MAX, Pet, type NewPet, type PetStatus } from '../schemas/pet';
import { parseRateLimitState, type RateLimitState } from './rate-limiter';
import { sampleAnimals } from './seed';

/**
 * The sandbox's animal store, in memory or backed by a data file (`--data`).
 *
 * Data file format (UTF-8 JSON, mode 0600, written with 2-space indentation):
 *   { "version": 1,
 *     "pets": [ { "id": 1, "name": "Rex", "categoryId": 1, "status": "available" }, … ],
 *     "rateLimits": { "<api key>": { "minuteStart": <epoch ms>, … } } }
 * ids and categoryIds are JSON numbers written digit for digit, so ids above
 * 2^53 survive (JSON.parse would round them; parseJson/stringifyJson do not).
 * Unknown top-level fields and unknown fields of a pet are kept.
 *
 * Concurrency: two processes may share one file (two petctl commands on the
 * sandbox profile, each with its own in-process server). Every change takes
 * an exclusive lock (proper-lockfile: the directory `<file>.lock`), re-reads
 * the file, changes it, writes a temporary file in the same directory, fsyncs
 * it and renames it over the data file. A reader therefore sees a whole old or
 * a whole new file, never half of one, and no change is lost. New ids are
 * max(existing id) + 1 computed under the lock, so they are unique across
 * processes. Reads take no lock; they re-read the file every time.
 *
 * A file that exists but is not a valid data file is an error naming the file:
 * it is never overwritten, so no animal is silently discarded. An empty file
 * (0 bytes or only white space) holds no animals and is treated as absent:
 * the store seeds it with the sample animals.
 */

export interface PetQuery {
  /** Maximum number returned; the caller has checked 1..100. */
  limit: number;
  status?: PetStatus;
}

export interface PetStore {
  /** The absolute data file path; undefined for an in-memory store. */
  readonly dataFile: string | undefined;
  /** Animals in ascending id order, filtered by status, at most `limit`. */
  list(query: PetQuery): Promise<Pet[]>;
  get(id: bigint): Promise<Pet | undefined>;
  /** Stores a new animal under the next id and returns it. */
  add(newPet: NewPet): Promise<Pet>;
  /**
   * Runs `update` on the rate-limit state atomically. With a file-backed store
   * that persists rate limits, the state lives in the data file and `update`
   * runs under its lock, so processes sharing the file share the counts.
   */
  updateRateLimits<T>(update: (state: RateLimitState) => T): Promise<T>;
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

export interface FileStoreOptions {
  /** Keep rate-limit counts in the data file (default true). */
  persistRateLimits?: boolean;
}

export interface MemoryStoreOptions {
  /** The animals to start with (default: the sample animals). */
  pets?: Pet[];
}

interface DataDocument {
  pets: Pet[];
  rateLimits: RateLimitState;
  /** Top-level fields this version does not know, written back unchanged. */
  other: Record<string, unknown>;
}

const DATA_FILE_VERSION = 1;

const DataFileShape = z.looseObject({
  version: z.optional(z.literal(DATA_FILE_VERSION)),
  pets: z.array(Pet),
  rateLimits: z.optional(z.unknown()),
});

export function createMemoryStore(options: MemoryStoreOptions = {}): PetStore {
  const document: DataDocument = { pets: copyPets(options.pets ?? sampleAnimals()), rateLimits: {}, other: {} };
  const mutex = new Mutex();
  return {
    dataFile: undefined,
    list: async (query) => selectPets(document.pets, query),
    get: async (id) => findPet(document.pets, id),
    add: (newPet) => mutex.run(() => addPet(document, newPet)),
    updateRateLimits: (update) => mutex.run(() => update(document.rateLimits)),
  };
}

/**
 * Opens (and when absent, creates with the sample animals) a file-backed store.
 * Rejects with SandboxDataFileError when the file is not a valid data file.
 */
export async function openFileStore(dataFile: string, options: FileStoreOptions = {}): Promise<PetStore> {
  const file = path.resolve(dataFile);
  const persistRateLimits = options.persistRateLimits ?? true;
  const mutex = new Mutex();
  const memoryRateLimits: RateLimitState = {};

  // Serialised inside this process by the mutex (so its requests do not fight
  // over the lock directory), and across processes by the lock.
  const transact = <T>(change: (document: DataDocument) => T): Promise<T> =>
    mutex.run(async () => {
      try {
        return await withFileLock(file, async () => {
          const document = (await readDocument(file)) ?? freshDocument();
          const result = change(document);
          writeFileAtomic(file, documentText(document));
          return result;
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new StoreBusyError(file, { cause: error });
        throw error;
      }
    });

  const current = async (): Promise<DataDocument> => {
    const document = await readDocument(file);
    if (document) return document;
    // Deleted while we run (or never created): recreate it under the lock.
    return transact((created) => created);
  };

  await current();

  return {
    dataFile: file,
    list: async (query) => selectPets((await current()).pets, query),
    get: async (id) => findPet((await current()).pets, id),
    add: (newPet) => transact((document) => addPet(document, newPet)),
    updateRateLimits: (update) =>
      persistRateLimits
        ? transact((document) => update(document.rateLimits))
        : mutex.run(() => update(memoryRateLimits)),
  };
}

/** An in-memory store when `dataFile` is absent, a file-backed one otherwise. */
export async function openStore(options: { dataFile?: string } & FileStoreOptions & MemoryStoreOptions): Promise<PetStore> {
  return options.dataFile === undefined ? createMemoryStore(options) : openFileStore(options.dataFile, options);
}

function freshDocument(): DataDocument {
  return { pets: sampleAnimals(), rateLimits: {}, other: {} };
}

function selectPets(pets: readonly Pet[], query: PetQuery): Pet[] {
  return copyPets(sortById(pets.filter((pet) => query.status === undefined || pet.status === query.status))).slice(
    0,
    query.limit,
  );
}

function findPet(pets: readonly Pet[], id: bigint): Pet | undefined {
  const pet = pets.find((candidate) => BigInt(candidate.id) === id);
  return pet && { ...pet };
}

function addPet(document: DataDocument, newPet: NewPet): Pet {
  const highest = document.pets.reduce((max, pet) => (BigInt(pet.id) > max ? BigInt(pet.id) : max), 0n);
  if (highest >= INT64_MAX) throw new Error('no int64 id is left above the highest stored id');
  const pet: Pet = {
    id: int64Value(highest + 1n),
    name: newPet.name,
    categoryId: newPet.categoryId,
    ...(newPet.status === undefined ? {} : { status: newPet.status }),
  };
  document.pets.push(pet);
  return { ...pet };
}

/** The representation parseJson gives an int64: a number while safe, a bigint beyond 2^53. */
function int64Value(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

function sortById(pets: Pet[]): Pet[] {
  return pets.sort((a, b) => {
    const left = BigInt(a.id);
    const right = BigInt(b.id);
    return left < right ? -1 : left > right ? 1 : 0;
  });
}

function copyPets(pets: readonly Pet[]): Pet[] {
  return pets.map((pet) => ({ ...pet }));
}

async function readDocument(file: string): Promise<DataDocument | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SandboxDataFileError(file, 'cannot be read', { cause: error });
  }
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = parseJson(text);
  } catch (error) {
    throw new SandboxDataFileError(file, `is not valid JSON (${(error as Error).message})`, { cause: error });
  }
  const result = DataFileShape.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new SandboxDataFileError(file, `is not a petctl sandbox data file${where}: ${issue?.message ?? 'invalid'}`);
  }
  const { version: _version, pets, rateLimits, ...other } = result.data;
  const seen = new Set<bigint>();
  for (const pet of pets) {
    const id = BigInt(pet.id);
    if (seen.has(id)) throw new SandboxDataFileError(file, `holds id ${id} twice`);
    seen.add(id);
  }
  return { pets, rateLimits: parseRateLimitState(rateLimits), other };
}

function documentText(document: DataDocument): string {
  return `${stringifyJson({ version: DATA_FILE_VERSION, ...document.other, pets: document.pets, rateLimits: document.rateLimits }, 2)}\n`;
}

/** Runs tasks one at a time, in call order. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => T | Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => {});
    return result;
  }
}
