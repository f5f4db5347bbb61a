import path from 'node:path';

import { limitsFileOf } from '../config/paths';
import { assertOwnFile } from '../file-safety';
import type { NewPet, Pet } from '../schemas/pet';
import { DEFAULT_MAX_ANIMALS } from './defaults';
import { storeFull } from './errors';
import { FileStore } from './file-store';
import { storedPet } from './pet-log';
import { PetTable, numberNewPets, sortedById, type Page, type PageQuery, type StoredPet } from './pet-table';
import { sampleAnimals } from './seed';

export { SandboxDataFileError, StoreBusyError } from './file-store';

/**
 * The sandbox's animal store, in memory or backed by a data file (`--data`:
 * file-store.ts). The animals are held in memory (pet-table.ts), as their JSON
 * text, from the moment the store opens; reads are served from memory and
 * never re-parse a stored animal.
 */

export type PetQuery = PageQuery;

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
  /** Stores a new animal under the next id; resolves once it is durably stored. Rejects with 507 when the store is full. */
  add(newPet: NewPet): Promise<StoredPet>;
  /** Waits for adds in progress. */
  close(): Promise<void>;
}

export interface MemoryStoreOptions {
  /** The animals to start with (default: the sample animals). */
  pets?: Pet[];
  /** The most animals it keeps (default DEFAULT_MAX_ANIMALS). */
  maxAnimals?: number;
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
      const max = options.maxAnimals ?? DEFAULT_MAX_ANIMALS;
      if (table.size >= max) throw storeFull(table.size, max);
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
export async function openFileStore(dataFile: string, maxAnimals = DEFAULT_MAX_ANIMALS): Promise<PetStore> {
  const file = path.resolve(dataFile);
  // Both files are written, and their content trusted: refused (unsafe_file) before the sandbox serves anything.
  assertOwnFile(file);
  assertOwnFile(limitsFileOf(file));
  const store = new FileStore(file, maxAnimals);
  await store.open();
  return store;
}
