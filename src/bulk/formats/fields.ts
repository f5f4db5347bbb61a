import { parseJson } from '../../schemas/json';
import { newPetProblem } from '../../schemas/new-pet-rules';
import { NewPet } from '../../schemas/pet';
import { petStatusOf } from '../../schemas/constants';
import { columnKey } from './columns';
import type { InputRow, ReadOptions } from './row';

/** A row's fields in every format: which are sent, which is the --id-column, which are ignored; validated as a single add is. */

/** Per input: which names were ignored already, so each is named once. */
export function ignoredOnce(options: ReadOptions): (name: string) => void {
  const seen = new Set<string>();
  return (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    options.onIgnored?.(name);
  };
}

/** The id column's value as a row's id: a non-empty string or a whole number. */
function rowIdOf(value: unknown, column: string): { rowId: string } | { reason: string } {
  if (typeof value === 'string' && value.trim() !== '') return { rowId: value.trim() };
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isFinite(value))) return { rowId: String(value) };
  if (value === undefined || value === null || value === '' || (typeof value === 'string' && value.trim() === '')) return { reason: `${column}: required (the --id-column)` };
  return { reason: `${column}: must be a string or a number (the --id-column)` };
}

/** A row's NewPet with its id column's value (`column` as the file names it): both reasons when both are bad. */
export function withRowId(pet: ReturnType<typeof validateNewPet>, idValue: unknown, column: string): Omit<InputRow, 'row' | 'line'> {
  const id = rowIdOf(idValue, column);
  if ('reason' in id) return { reason: 'reason' in pet ? `${pet.reason}; ${id.reason}` : id.reason };
  return { ...pet, ...id };
}

/** Validates a row's fields: the sent ones with the NewPet schema, the id column's value; the rest is ignored. */
function validateFields(fields: Record<string, unknown>, options: ReadOptions, ignore: (name: string) => void): Omit<InputRow, 'row' | 'line'> {
  const sent: Record<string, unknown> = {};
  let idValue: unknown;
  const idKey = options.idColumn === undefined ? undefined : columnKey(options.idColumn);
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'status' && typeof value === 'string') sent.status = petStatusOf(value) ?? value;
    else if (name === 'name' || name === 'categoryId' || name === 'status') sent[name] = value;
    else if (idKey !== undefined && columnKey(name) === idKey) idValue = value;
    else ignore(name);
  }
  const pet = validateNewPet(sent);
  return idKey === undefined ? pet : withRowId(pet, idValue, options.idColumn!.trim());
}

/** Validates one parsed value with the NewPet schema, as a row reason on failure. */
export function validateNewPet(value: unknown): { newPet: NewPet } | { reason: string } {
  const result = NewPet.safeParse(value);
  if (!result.success) return { reason: result.error.issues.map((issue) => newPetProblem(issue, value)).join('; ') };
  // The schema trims the name; a name of spaces must fail here as it does for a single add.
  if (result.data.name.trim() === '') return { reason: 'name: must not be empty' };
  return { newPet: result.data };
}

/** Integers of 16 or more digits may be beyond 2^53, where JSON.parse would round them. */
const LONG_NUMBER = /\d{16}/;

export function rowFromJsonText(row: number, line: number, text: string, options: ReadOptions, ignore: (name: string) => void): InputRow {
  let value: unknown;
  try {
    // JSON.parse leaves far less garbage; the lossless parser only where a number could lose digits.
    value = LONG_NUMBER.test(text) ? parseJson(text) : JSON.parse(text);
  } catch (error) {
    return { row, line, reason: `not valid JSON (${(error as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { row, line, ...validateNewPet(value) };
  return { row, line, ...validateFields(value as Record<string, unknown>, options, ignore) };
}
