import { parseInt64 } from '../schemas/json';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN, NewPet, PET_STATUSES, type PetStatus } from '../schemas/pet';
import { NEW_PET_FIELDS, STATUS_RULE, newPetProblem } from '../schemas/new-pet-rules';
import { SandboxHttpError } from './errors';
import type { PetQuery } from './store';

/**
 * Checks of what a client sends: each returns the typed value or throws a
 * SandboxHttpError whose message names the parameter or field and what is allowed.
 */

/** listPets: `limit` (1..100, default 20), `status`, and the paging parameter `after` (an int64 id); others are ignored. */
export function parseListQuery(params: URLSearchParams): PetQuery {
  const limitText = single(params, 'limit');
  let limit = LIMIT_DEFAULT;
  if (limitText !== undefined) {
    limit = /^[0-9]{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(limit >= LIMIT_MIN && limit <= LIMIT_MAX)) {
      throw new SandboxHttpError('invalid_parameter', `limit must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}, got ${JSON.stringify(limitText)}`);
    }
  }
  const statusText = single(params, 'status');
  if (statusText !== undefined && !(PET_STATUSES as readonly string[]).includes(statusText)) {
    throw new SandboxHttpError('invalid_parameter', `status ${STATUS_RULE}, got ${JSON.stringify(statusText)}`);
  }
  const afterText = single(params, 'after');
  const after = afterText === undefined ? undefined : parseInt64(afterText);
  if (afterText !== undefined && after === undefined) {
    throw new SandboxHttpError('invalid_parameter', `after must be an int64 id (decimal digits, no leading zeros), got ${JSON.stringify(afterText)}`);
  }
  return { limit, status: statusText as PetStatus | undefined, after: after === undefined ? undefined : BigInt(after) };
}

function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new SandboxHttpError('invalid_parameter', `${name} may be given only once`);
  return values[0];
}

/** getPet's `petId` path segment (still percent-encoded): an int64. */
export function parsePetId(segment: string): bigint {
  let text: string;
  try {
    text = decodeURIComponent(segment);
  } catch {
    text = segment;
  }
  const id = parseInt64(text);
  if (id === undefined) {
    throw new SandboxHttpError('invalid_parameter', `petId must be an int64 integer (decimal digits, no leading zeros), got ${JSON.stringify(text)}`);
  }
  return BigInt(id);
}

const REQUIRED_FIELDS = ['name', 'categoryId'] as const;

/**
 * createPet's body, already parsed with parseJson (so numbers beyond 2^53 are
 * exact bigints and decimals beyond a double are LosslessNumbers, which fail).
 * Checked in this order, the first problem wins: an object; no `id`; no
 * unknown field; both required fields present; each value valid.
 */
export function parseNewPet(body: unknown): NewPet {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SandboxHttpError('invalid_body', 'the body must be a JSON object with name, categoryId and optional status');
  }
  if (Object.hasOwn(body, 'id')) {
    throw new SandboxHttpError('invalid_field', 'id is assigned by the service and must not be sent');
  }
  const unknown = Object.keys(body).filter((field) => !(NEW_PET_FIELDS as readonly string[]).includes(field));
  if (unknown.length > 0) {
    const names = unknown.map((field) => JSON.stringify(field)).join(', ');
    throw new SandboxHttpError('unknown_field', `unknown field${unknown.length > 1 ? 's' : ''} ${names}; a NewPet has name, categoryId and status`);
  }
  const missing = REQUIRED_FIELDS.filter((field) => !Object.hasOwn(body, field));
  if (missing.length > 0) {
    throw new SandboxHttpError('missing_field', `missing required field${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}`);
  }
  const result = NewPet.safeParse(body);
  // The first problem, worded as the client words a row's (schemas/new-pet-rules.ts).
  if (!result.success) throw new SandboxHttpError('invalid_field', newPetProblem(result.error.issues[0]!, body));
  return result.data;
}
