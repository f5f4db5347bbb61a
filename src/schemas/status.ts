import { PET_STATUSES, type PetStatusValue } from './constants';

/**
 * A status as people type it (`Available`, ` SOLD `) as the specification's lower-case word, or
 * undefined. Only the client normalises: the sandbox keeps refusing any other spelling.
 */
export function petStatusOf(text: string): PetStatusValue | undefined {
  const word = text.trim().toLowerCase();
  return PET_STATUSES.find((status) => status === word);
}
