// zod/mini: tree-shakeable, so every start evaluates only the checks used here.
import * as z from 'zod/mini';
import { INT64_MAX, INT64_MIN, PET_STATUSES } from './constants';

const PetStatus = z.enum(PET_STATUSES);

/** An int64 as `parseJson` gives it: a number while it is a safe integer, a bigint beyond 2^53. */
const Int64 = z.union([z.int(), z.bigint().check(z.gte(INT64_MIN), z.lte(INT64_MAX))]);

/** createPet's body: strict, since the service assigns `id` and a client never sends one. */
export const NewPet = z.strictObject({
  name: z.string().check(z.trim(), z.minLength(1, 'name must not be empty')),
  categoryId: Int64,
  status: z.optional(PetStatus),
});
export type NewPet = z.infer<typeof NewPet>;

/** Loose, so that fields a newer server adds survive into json output. */
export const Pet = z.looseObject({
  id: Int64,
  name: z.string(),
  categoryId: Int64,
  status: z.optional(PetStatus),
});
export type Pet = z.infer<typeof Pet>;

export const Pets = z.array(Pet);
export type Pets = z.infer<typeof Pets>;

/** Words a person or a script can read: a blank code or message says nothing, as if the field were missing. */
const Said = z.string().check(z.refine((text) => text.trim() !== ''));

/** The Error body: the specification requires all three fields. */
export const ErrorBody = z.looseObject({
  code: Said,
  message: Said,
  status: z.int(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
