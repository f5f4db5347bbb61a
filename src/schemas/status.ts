import { PET_STATUSES, type PetStatusValue } from './constants';

/** A status as people type it (` SOLD `) as the spec's word; only the client normalises, the sandbox refuses others. */
export function petStatusOf(text: string): PetStatusValue | undefined {
  const word = text.trim().toLowerCase();
  return PET_STATUSES.find((status) => status === word);
}
