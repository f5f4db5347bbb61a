/** The specification's values, and reading them from text, free of zod so that parsing argv loads nothing heavy. */

/** PetStatus, in the order the specification lists it. */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

/** A status as people type it (` SOLD `) as the spec's word; only the client normalises, the sandbox refuses others. */
export function petStatusOf(text: string): PetStatus | undefined {
  const word = text.trim().toLowerCase();
  return PET_STATUSES.find((status) => status === word);
}

/** listPets' `limit`: minimum 1, maximum 100, default 20. */
export const LIMIT_MIN = 1;
export const LIMIT_MAX = 100;
export const LIMIT_DEFAULT = 20;

/** getPet is deprecated; the specification states its removal date. */
export const GET_PET_SUNSET = '2030-12-05';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** An int64 from decimal text (a flag, a path segment), or undefined: a number while safe, else a bigint. */
export function parseInt64(text: string): number | bigint | undefined {
  if (!/^-?(0|[1-9][0-9]*)$/.test(text)) return undefined;
  const big = BigInt(text);
  if (big < INT64_MIN || big > INT64_MAX) return undefined;
  return Number.isSafeInteger(Number(text)) ? Number(text) : big;
}

/** What an int64 must be, for text that is not one: the range only for a whole number outside it. */
export function int64Problem(text: string): string {
  if (!/^-?\d+$/.test(text)) return 'must be a whole number';
  const big = BigInt(text);
  if (big < INT64_MIN || big > INT64_MAX) return `must be a whole number from ${INT64_MIN} to ${INT64_MAX}`;
  return 'must be a whole number written without leading zeros';
}
