import { PET_STATUSES, int64Problem } from './constants';

/** What a NewPet's fields must be, for the client's flags and rows and the sandbox's 400s; free of zod. */

export const STATUS_RULE = `must be one of ${PET_STATUSES.join(', ')}`;

export const NEW_PET_FIELDS = ['name', 'categoryId', 'status'] as const;

/** A value as it was given: a text in quotes, a number or other JSON value as written. */
function asTyped(value: unknown): string {
  return typeof value === 'bigint' ? String(value) : JSON.stringify(value) ?? String(value);
}

/** zod/mini carries no English messages ("Invalid input"), so each issue of NewPet is said here, field first. */
export function newPetProblem(issue: { code: string; path: PropertyKey[]; message: string; keys?: string[] }, value: unknown): string {
  const field = issue.path.map(String).join('.');
  if (field === '') {
    if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys!.map((key) => JSON.stringify(key)).join(', ')} (allowed: ${NEW_PET_FIELDS.join(', ')})`;
    return 'must be an object {"name":…,"categoryId":…,"status":…}';
  }
  const given = (value as Record<string, unknown>)[field];
  if (given === undefined) return `${field}: required`;
  if (field === 'status') return `status ${STATUS_RULE}, not ${asTyped(given)}`;
  if (field === 'categoryId') return `categoryId ${int64Problem(typeof given === 'number' || typeof given === 'bigint' ? String(given) : '')}, not ${asTyped(given)}`;
  if (field === 'name' && issue.code === 'invalid_type') return `name must be a string, not ${asTyped(given)}`;
  if (field === 'name' && issue.code === 'too_small') return 'name: must not be empty';
  return `${field}: ${issue.message}`;
}
