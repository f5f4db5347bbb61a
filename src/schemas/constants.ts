/** Values from the specification that flag parsing needs, free of zod so that parsing argv loads nothing heavy. */

/** PetStatus, in the order the specification lists it. */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatusValue = (typeof PET_STATUSES)[number];

/** listPets' `limit`: minimum 1, maximum 100, default 20. */
export const LIMIT_MIN = 1;
export const LIMIT_MAX = 100;
export const LIMIT_DEFAULT = 20;

/** getPet is deprecated; the specification states its removal date. */
export const GET_PET_SUNSET = '2030-12-05';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
