import { PET_STATUSES, type PetStatusValue } from './constants';

/**
 * A status as people type it (`Available`, `SOLD`, ` pending `) as the specification's
 * lower-case word; undefined when it is none. Only the client normalises: the service's
 * enumeration is lower-case, so the sandbox keeps refusing any other spelling.
 */
export function petStatusOf(text: string): PetStatusValue | undefined {
  const word = text.trim().toLowerCase();
  return PET_STATUSES.find((status) => status === word);
}
