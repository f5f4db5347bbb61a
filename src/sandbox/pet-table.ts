import { INT64_MAX } from '../schemas/constants';
import { stringifyJson } from '../schemas/json';
import type { NewPet, PetStatus } from '../schemas/pet';

/**
 * The stored animals in memory, indexed for the hot path.
 *
 * Each animal is kept as its JSON text, exactly as it is stored and answered,
 * so a list or a get never re-serialises (or re-validates) an animal. ids are
 * kept in ascending order: new ids are always the highest plus one, so adds
 * only ever append, and a data file is loaded in id order. A page is a binary
 * search for `after` plus at most `limit` steps, in the whole table or in the
 * positions of one status; its cost does not grow with the number of animals.
 */

export interface StoredPet {
  id: bigint;
  status: PetStatus | undefined;
  /** The animal as compact JSON, ids digit for digit. */
  json: string;
}

export interface PageQuery {
  limit: number;
  status?: PetStatus;
  /** Only animals with a greater id. */
  after?: bigint;
}

export interface Page {
  /** The JSON array of the page's animals. */
  body: string;
  /** The last id on the page, when more animals match after it. */
  nextAfter: bigint | undefined;
}

export class PetTable {
  private readonly ids: bigint[] = [];
  private readonly texts: string[] = [];
  private readonly byStatus = new Map<PetStatus, number[]>();
  private readonly statuses: Array<PetStatus | undefined> = [];
  /** Bumped on every change; caches of pages compare it. */
  version = 0;

  constructor(pets: Iterable<StoredPet> = []) {
    for (const pet of pets) this.push(pet);
  }

  get size(): number {
    return this.ids.length;
  }

  /** The highest stored id, 0 when empty (so the first new id is 1). */
  get highestId(): bigint {
    return this.ids.length === 0 ? 0n : (this.ids[this.ids.length - 1] as bigint);
  }

  /** Appends an animal whose id is above every stored one. */
  push(pet: StoredPet): void {
    if (this.ids.length > 0 && pet.id <= this.highestId) {
      throw new RangeError(`id ${pet.id} is not above the highest stored id ${this.highestId}`);
    }
    const position = this.ids.length;
    this.ids.push(pet.id);
    this.texts.push(pet.json);
    this.statuses.push(pet.status);
    if (pet.status !== undefined) {
      let positions = this.byStatus.get(pet.status);
      if (!positions) this.byStatus.set(pet.status, (positions = []));
      positions.push(position);
    }
    this.version += 1;
  }

  /** Every animal, in ascending id order. */
  all(): StoredPet[] {
    return this.ids.map((id, position) => ({ id, status: this.statuses[position], json: this.texts[position] as string }));
  }

  /** The JSON text of the animal with this id. */
  get(id: bigint): string | undefined {
    const position = firstAbove(this.ids, id - 1n, (index) => index);
    return position < this.ids.length && this.ids[position] === id ? this.texts[position] : undefined;
  }

  page(query: PageQuery): Page {
    const positions = query.status === undefined ? undefined : (this.byStatus.get(query.status) ?? []);
    const count = positions ? positions.length : this.ids.length;
    const at = positions ? (index: number) => positions[index] as number : (index: number) => index;
    let index = query.after === undefined ? 0 : firstAbove(this.ids, query.after, at, count);
    const end = Math.min(count, index + query.limit);
    const parts: string[] = [];
    let last = -1;
    for (; index < end; index += 1) {
      last = at(index);
      parts.push(this.texts[last] as string);
    }
    return { body: `[${parts.join(',')}]`, nextAfter: index < count && last >= 0 ? this.ids[last] : undefined };
  }
}

/** The first index (0..count) whose id, through `at`, is greater than `id`. */
function firstAbove(ids: readonly bigint[], id: bigint, at: (index: number) => number, count = ids.length): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ids[at(middle)] as bigint) > id) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** New animals under the ids after `highestId`, in order: ids only grow, up to the largest int64. */
export function numberNewPets(highestId: bigint, newPets: readonly NewPet[]): StoredPet[] {
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

/** In ascending id order, the table's order. */
export function sortedById(pets: StoredPet[]): StoredPet[] {
  return pets.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
