import { INT64_MAX, type PetStatus } from '../schemas/constants';
import { stringifyJson } from '../schemas/json';
import type { NewPet, Pet } from '../schemas/pet';
import { DEFAULT_MAX_ANIMALS } from './defaults';
import { SandboxHttpError } from './errors';

export interface StoredPet {
  id: bigint;
  status: PetStatus | undefined;
  /** Compact JSON, ids digit for digit. */
  json: string;
}

export interface PetQuery {
  limit: number;
  status?: PetStatus;
  after?: bigint;
}

/** The page's JSON array, and its last id when more animals match after it. */
export type Page = { body: string; nextAfter: bigint | undefined };

/** The animals in memory (`pets`, in ascending ids), each as the JSON text answered (a read never
 * re-serialises). ids ascend, so adds append and a page is a binary search for `after`, then a walk in id order. */
export class PetStore {
  readonly dataFile: string | undefined;
  /** Bumped on every change; caches of pages compare it. */
  version = 0;

  constructor(protected pets: StoredPet[], readonly maxAnimals = DEFAULT_MAX_ANIMALS) {}

  get highestId(): bigint {
    return this.pets.at(-1)?.id ?? 0n;
  }

  /** Takes in what other processes stored (a data file's store). */
  refresh(): void {}

  /** Resolves once stored (on disk, for a data file's store). */
  async add(newPet: NewPet): Promise<StoredPet> {
    const [pet] = this.numberNewPets([newPet]);
    if (pet === undefined) throw this.full();
    this.push(pet);
    return pet;
  }

  async close(): Promise<void> {}

  /** Appends an animal whose id is above every stored one. */
  protected push(pet: StoredPet): void {
    this.pets.push(pet);
    this.version += 1;
  }

  /** As many as the cap leaves room for. */
  protected numberNewPets(newPets: readonly NewPet[]): StoredPet[] {
    let id = this.highestId;
    return newPets.slice(0, Math.max(0, this.maxAnimals - this.pets.length)).map(({ name, categoryId, status }) => {
      if (id >= INT64_MAX) throw new Error('no int64 id is left above the highest stored id');
      id += 1n;
      return storedPet({ id, name, categoryId, status });
    });
  }

  /** A create refused (507): nothing was stored. */
  protected full(): SandboxHttpError {
    const message = `the sandbox holds ${this.pets.length} animals and keeps at most ${this.maxAnimals} (--max-animals); this one was not created`;
    return new SandboxHttpError('insufficient_storage', message);
  }

  get(id: bigint): string | undefined {
    const pet = this.pets[this.firstAbove(id - 1n)];
    return pet?.id === id ? pet.json : undefined;
  }

  page(query: PetQuery): Page {
    const pets = this.pets;
    const matches = (index: number) => query.status === undefined || pets[index]!.status === query.status;
    const parts: string[] = [];
    let last: StoredPet | undefined;
    let index = query.after === undefined ? 0 : this.firstAbove(query.after);
    for (; index < pets.length && parts.length < query.limit; index += 1) {
      if (!matches(index)) continue;
      last = pets[index]!;
      parts.push(last.json);
    }
    while (index < pets.length && !matches(index)) index += 1;
    return { body: `[${parts.join(',')}]`, nextAfter: index < pets.length ? last?.id : undefined };
  }

  /** The first index whose id is above `id`. */
  private firstAbove(id: bigint): number {
    let low = 0;
    let high = this.pets.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.pets[middle]!.id > id) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}

export function storedPet(pet: Pick<Pet, 'id' | 'name' | 'categoryId'> & { status?: PetStatus | undefined }): StoredPet {
  return { id: BigInt(pet.id), status: pet.status, json: stringifyJson(pet) };
}

export function createMemoryStore(maxAnimals?: number): PetStore {
  return new PetStore(sampleAnimals().map(storedPet), maxAnimals);
}

/** The dozen animals a fresh sandbox holds: all three statuses, categories 1..4 (dogs, cats, birds, small animals), ids 1..12. */
export function sampleAnimals(): Pet[] {
  return [
    { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
    { id: 2, name: 'Bella', categoryId: 1, status: 'pending' },
    { id: 3, name: 'Max', categoryId: 1, status: 'sold' },
    { id: 4, name: 'Luna', categoryId: 2, status: 'available' },
    { id: 5, name: 'Oliver', categoryId: 2, status: 'available' },
    { id: 6, name: 'Milo', categoryId: 2, status: 'sold' },
    { id: 7, name: 'Kiwi', categoryId: 3, status: 'available' },
    { id: 8, name: 'Sunny', categoryId: 3, status: 'pending' },
    { id: 9, name: 'Hazel', categoryId: 4, status: 'available' },
    { id: 10, name: 'Pepper', categoryId: 4, status: 'sold' },
    { id: 11, name: 'Daisy', categoryId: 1, status: 'available' },
    { id: 12, name: 'Nibbles', categoryId: 4, status: 'pending' },
  ];
}
