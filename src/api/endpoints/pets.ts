import * as z from 'zod/mini';
import { InvalidResponseError, NetworkError, ServiceError } from '../../errors';
import { GET_PET_SUNSET, type PetStatus } from '../../schemas/constants';
import { stringifyJson } from '../../schemas/json';
import { NewPet, Pet, Pets } from '../../schemas/pet';
import { clip } from '../answer';
import type { HttpClient } from '../client';
import type { ApiResponse, RequestHooks } from '../request';
import { parseHttpDate } from '../limits/headers';

export function validated<T>(schema: z.ZodMiniType<T>, response: ApiResponse, what: string): T {
  const result = schema.safeParse(response.body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const problem = issue ? answerProblem(issue, response.body) : 'invalid';
  const message = `the server's answer to ${what} is not what the specification says (${problem})`;
  throw new InvalidResponseError(message, response.status);
}

const KINDS: Record<string, string> = { array: 'an array', object: 'an object', string: 'a string' };

/** zod/mini says only "Invalid input": what the answer's field must be, and what came instead. */
function answerProblem(issue: z.core.$ZodIssue, body: unknown): string {
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  if (issue.code === 'custom') return `${where}${issue.message}`;
  const field = (value: unknown, key: PropertyKey) => (value as Record<PropertyKey, unknown> | null)?.[key];
  const given = issue.path.reduce<unknown>(field, body);
  if (given === undefined) return issue.path.length > 0 ? `${where}missing` : 'the body is empty';
  let rule = 'must be a whole number (int64)';
  if (issue.code === 'invalid_value') rule = `must be one of ${issue.values.join(', ')}`;
  if (issue.code === 'invalid_type') rule = `must be ${KINDS[issue.expected] ?? issue.expected}`;
  const text = typeof given === 'bigint' ? String(given) : stringifyJson(given);
  return `${where}${rule}, not ${clip(text, 60)}`;
}

/** Only an answer the specification allows is kept by --cache. */
function fits(schema: z.ZodMiniType<unknown>): (response: ApiResponse) => boolean {
  return (response) => schema.safeParse(response.body).success;
}

export interface ListPetsParams {
  limit?: number;
  status?: PetStatus;
  /** --cache: an answer up to this old (ms) may come from the response cache. */
  cacheForMs?: number;
}

export async function listPets(http: HttpClient, params: ListPetsParams, hooks?: RequestHooks): Promise<{ pets: Pets; response: ApiResponse }> {
  const response = await http.send({ method: 'GET', path: '/pets', query: { limit: params.limit, status: params.status }, hooks, cacheForMs: params.cacheForMs, cacheIf: fits(Pets) });
  return { pets: validated(Pets, response, 'GET /pets'), response };
}

/** createPet: POST /pets. Never retried once sent (except after a 429, which was not processed). */
export async function createPet(http: HttpClient, newPet: NewPet, hooks?: RequestHooks): Promise<Pet> {
  const body = NewPet.parse(newPet);
  try {
    const response = await http.send({ method: 'POST', path: '/pets', body, hooks });
    return validated(Pet, response, 'POST /pets');
  } catch (error) {
    throw withOutcomeHint(error);
  }
}

const CHECK = 'check with petctl pets list before adding it again';
const MAY_EXIST = `the animal may or may not have been created; ${CHECK}`;

/** A failed POST's error, saying what became of the animal: created (a 2xx whose body is no Pet), perhaps (sent without
 * an answer; a 5xx, but 507, which stored nothing), or nothing to say (it was refused, or never sent). */
function withOutcomeHint(error: unknown): unknown {
  if (error instanceof NetworkError) {
    if (!error.sent) return error;
    const code = error.code as 'network_error' | 'timeout';
    return new NetworkError(error.message, { code, sent: true, cause: error, hint: MAY_EXIST });
  }
  if (!(error instanceof ServiceError)) return error;
  const { status } = error;
  const created = status >= 200 && status < 300;
  if (!created && (status < 500 || status === 507)) return error;
  const hint = created ? `the service answered ${status}, so the animal was created; ${CHECK}` : MAY_EXIST;
  if (error instanceof InvalidResponseError) return new InvalidResponseError(error.message, status, hint);
  return new ServiceError(error.message, { code: error.code, status, body: error.body, hint, cause: error });
}

/** The Sunset header (RFC 8594), else the removal date the specification states. */
function sunsetDate(header: (name: string) => string | undefined): string {
  const at = parseHttpDate(header('sunset'));
  return at === undefined ? GET_PET_SUNSET : new Date(at).toISOString().slice(0, 10);
}

/** The Pet asked for: another animal (a proxy's or a cache's mix-up) is no answer to GET /pets/{petId}. */
function petWithId(petId: number | bigint): z.ZodMiniType<Pet> {
  const asked = petId.toString();
  const came = (issue: { input?: unknown }) => `${String((issue.input as Pet).id)}, not ${asked}`;
  return Pet.check(z.refine((pet) => pet.id.toString() === asked, { path: ['id'], error: came }));
}

/** getPet: GET /pets/{petId} (deprecated). `onSunset` hears the removal date from every answer, errors included. */
export async function getPet(http: HttpClient, petId: number | bigint, onSunset?: (date: string) => void, cacheForMs?: number): Promise<Pet> {
  const path = `/pets/${petId.toString()}`;
  const schema = petWithId(petId);
  const response = await http.send({ method: 'GET', path, hooks: { onAnswer: (answer) => onSunset?.(sunsetDate(answer.header)) }, cacheForMs, cacheIf: fits(schema) });
  return validated(schema, response, `GET ${path}`);
}
