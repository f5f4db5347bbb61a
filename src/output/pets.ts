import type { Pet } from '../schemas/pet';
import type { OutputFormat } from '../globals';
import { renderRecord, renderRecords, type RecordColumn, type RenderOptions } from './records';

/** ID, NAME, CATEGORY, STATUS; in csv: id,name,categoryId,status (the spec's property names). */
const PET_COLUMNS: readonly RecordColumn<Pet>[] = [
  // String() of a bigint is exact, so an int64 id keeps every digit.
  { key: 'id', header: 'ID', value: (pet) => String(pet.id), csv: (pet) => pet.id },
  { key: 'name', header: 'NAME', value: (pet) => pet.name, truncate: true },
  { key: 'categoryId', header: 'CATEGORY', value: (pet) => String(pet.categoryId), csv: (pet) => pet.categoryId },
  {
    key: 'status',
    header: 'STATUS',
    value: (pet) => pet.status,
    // dim rather than gray: bright black vanishes on some dark themes (Solarized).
    color: (pet, chalk) =>
      pet.status && { available: chalk.green, pending: chalk.yellow, sold: chalk.dim }[pet.status],
  },
];

export function renderPets(pets: readonly Pet[], format: OutputFormat, options: RenderOptions): string {
  return renderRecords(PET_COLUMNS, pets, format, options);
}

export function renderPet(pet: Pet, format: OutputFormat, options: RenderOptions): string {
  return renderRecord(PET_COLUMNS, pet, format, options);
}

/** Said once after a single add or an import: animals without a status are left out by every `--status` filter. */
export function noStatusLine(count: number): string {
  const subject = count === 1 ? '1 animal has no status: it appears' : `${count} animals have no status: they appear`;
  return `${subject} in no pets list --status available|pending|sold, only in pets list without --status`;
}
