import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJson } from '../schemas/json';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN, PET_STATUSES, type PetStatus, parseInt64 } from '../schemas/constants';
import { NewPet } from '../schemas/pet';
import { NEW_PET_FIELDS, STATUS_RULE, newPetProblem } from '../schemas/new-pet-rules';
import { SandboxHttpError } from './errors';
import type { SandboxKey } from './keys';
import type { PetQuery } from './store';

/** listPets: `limit`, `status` and the paging parameter `after`; others are ignored. */
export function parseListQuery(params: URLSearchParams): PetQuery {
  const limitText = single(params, 'limit') ?? String(LIMIT_DEFAULT);
  const limit = /^[0-9]{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN;
  if (!(limit >= LIMIT_MIN && limit <= LIMIT_MAX)) {
    throw new SandboxHttpError('invalid_parameter', `limit must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}, got ${JSON.stringify(limitText)}`);
  }
  const statusText = single(params, 'status');
  if (statusText !== undefined && !(PET_STATUSES as readonly string[]).includes(statusText)) {
    throw new SandboxHttpError('invalid_parameter', `status ${STATUS_RULE}, got ${JSON.stringify(statusText)}`);
  }
  const afterText = single(params, 'after');
  const after = afterText === undefined ? undefined : int64Parameter(afterText, 'after must be an int64 id');
  return { limit, status: statusText as PetStatus | undefined, after };
}

function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new SandboxHttpError('invalid_parameter', `${name} may be given only once`);
  return values[0];
}

/** getPet's `petId` path segment, still percent-encoded. */
export function parsePetId(segment: string): bigint {
  let text: string;
  try {
    text = decodeURIComponent(segment);
  } catch {
    text = segment;
  }
  return int64Parameter(text, 'petId must be an int64 integer');
}

function int64Parameter(text: string, rule: string): bigint {
  const id = parseInt64(text);
  if (id === undefined) {
    throw new SandboxHttpError('invalid_parameter', `${rule} (decimal digits, no leading zeros), got ${JSON.stringify(text)}`);
  }
  return BigInt(id);
}

const REQUIRED_FIELDS = ['name', 'categoryId'] as const;

/** The first problem wins: an object, no `id`, no unknown field, both required, each valid. */
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

const AUTH_REALM = 'petctl-sandbox';

/** Bearer authentication (RFC 6750 §3): the key, or its refusal. Several Authorization headers or credentials are
 * ambiguous: 400, never "the first one wins" (`rawHeaders`: node keeps only the first in `request.headers`). */
export function authenticate(rawHeaders: readonly string[], keys: readonly SandboxKey[]): SandboxKey | SandboxHttpError {
  let header: string | undefined;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    if (header !== undefined) {
      return new SandboxHttpError('invalid_request', 'send exactly one Authorization header; this request has more than one');
    }
    header = rawHeaders[index + 1] as string;
  }
  if (header === undefined || header.trim() === '') {
    return unauthorized('an API key is required: send Authorization: Bearer <key>');
  }
  if (header.includes(',')) {
    return new SandboxHttpError('invalid_request', 'the Authorization header holds more than one credential; send exactly one: Authorization: Bearer <key>');
  }
  const match = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?: +(.*))?$/.exec(header.trim());
  if (!match || match[1]?.toLowerCase() !== 'bearer') {
    return unauthorized('the Authorization header must use the Bearer scheme: Authorization: Bearer <key>');
  }
  const token = match[2] ?? '';
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) {
    return unauthorized('the Authorization header is malformed: expected Authorization: Bearer <key>', 'invalid_request');
  }
  return keys.find((candidate) => candidate.key === token) ?? unauthorized('the API key is not valid', 'invalid_token');
}

function unauthorized(message: string, error?: 'invalid_request' | 'invalid_token'): SandboxHttpError {
  const challenge = `Bearer realm="${AUTH_REALM}"${error ? `, error="${error}"` : ''}`;
  return new SandboxHttpError('unauthorized', message, { 'WWW-Authenticate': challenge });
}

/** A NewPet is well under 1 KiB. */
const MAX_BODY_BYTES = 64 * 1024;

/** A body too large is still read and dropped up to this, so that a client still uploading reads the 413, not a reset. */
export const DRAIN_LIMIT_BYTES = 1024 * 1024;

const JSON_CONTENT_TYPE_HINT = 'Content-Type must be application/json (optionally with charset=utf-8)';

/** A charset, if given, must be UTF-8 (RFC 8259 §8.1). */
export function checkJsonContentType(request: IncomingMessage): void {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw new SandboxHttpError('unsupported_media_type', `Content-Encoding ${encoding} is not supported; send the body uncompressed`);
  }
  const header = request.headers['content-type'];
  if (header === undefined) throw new SandboxHttpError('unsupported_media_type', `${JSON_CONTENT_TYPE_HINT}; none was given`);
  const [mediaType = '', ...parameters] = header.split(';').map((part) => part.trim());
  if (mediaType.toLowerCase() !== 'application/json') {
    throw new SandboxHttpError('unsupported_media_type', `${JSON_CONTENT_TYPE_HINT}, got ${mediaType || '(empty)'}`);
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=', 2).map((part) => part.trim());
    if (name.toLowerCase() !== 'charset') continue;
    const charset = value.replace(/^"(.*)"$/, '$1').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') {
      throw new SandboxHttpError('unsupported_media_type', `${JSON_CONTENT_TYPE_HINT}, got charset ${value}`);
    }
  }
}

function tooLarge(): SandboxHttpError {
  return new SandboxHttpError('payload_too_large', `the request body exceeds ${MAX_BODY_BYTES} bytes (64 KiB)`, { Connection: 'close' });
}

/** `expectContinue`: the client waits for 100 Continue before sending the body. */
export async function readJsonBody(request: IncomingMessage, response: ServerResponse, expectContinue: boolean): Promise<unknown> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    // A client waiting for 100 Continue has sent nothing yet: refused at once.
    if (!expectContinue && declared <= DRAIN_LIMIT_BYTES) await readBytes(request, DRAIN_LIMIT_BYTES);
    throw tooLarge();
  }
  if (expectContinue) response.writeContinue();
  const { bytes, total } = await readBytes(request, DRAIN_LIMIT_BYTES, MAX_BODY_BYTES);
  if (total > MAX_BODY_BYTES) throw tooLarge();

  if (bytes.length === 0) throw new SandboxHttpError('invalid_body', 'a JSON body (NewPet) is required');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SandboxHttpError('invalid_json', 'the body is not valid UTF-8');
  }
  try {
    return parseJson(text);
  } catch (error) {
    throw new SandboxHttpError('invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Reads the request until its end or past `stopAfter` bytes, keeping only the first `keep`; `total` counts every byte seen. */
function readBytes(request: IncomingMessage, stopAfter: number, keep = 0): Promise<{ bytes: Buffer; total: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const listeners = {
      data: (chunk: Buffer): void => {
        total += chunk.length;
        if (total <= keep) chunks.push(chunk);
        if (total > stopAfter) stop();
      },
      end: () => stop(),
      close: () => request.complete || stop(new Error('the client closed the connection before the end of the body')),
    };
    // Settled once: whatever comes after is ignored (an 'error' listener stays, so a late error is no crash).
    const stop = (error?: Error): void => {
      for (const [event, listener] of Object.entries(listeners)) request.off(event, listener);
      if (error) reject(error);
      else resolve({ bytes: Buffer.concat(chunks), total });
    };
    for (const [event, listener] of Object.entries(listeners)) request.on(event, listener);
    request.on('error', stop);
  });
}
