/**
 * The sandbox's error codes: the `code` of every Error body it sends.
 * The specification leaves the set of codes open; these are stable, and
 * documented here and in docs/sandbox.md.
 *
 *   status  code                    when
 *   400     invalid_json            body is not valid JSON, or not UTF-8
 *   400     invalid_body            body is empty, or JSON but not an object
 *   400     missing_field           name or categoryId is absent
 *   400     invalid_field           a field has a wrong type or value (empty name,
 *                                   status outside the enum, categoryId not an
 *                                   int64), or the client sent `id`
 *   400     unknown_field           a field other than name, categoryId, status
 *   400     invalid_parameter       limit not an integer 1..100, status outside the
 *                                   enum, after or petId not an int64, a query
 *                                   parameter given twice
 *   400     invalid_request         more than one Authorization header, or one
 *                                   holding several credentials
 *   401     unauthorized            Authorization missing, not Bearer, malformed, or unknown key
 *   404     not_found               no such path
 *   404     pet_not_found           no animal has that id
 *   405     method_not_allowed      known path, other method (Allow lists the methods)
 *   413     payload_too_large       body over 64 KiB (65 536 bytes)
 *   415     unsupported_media_type  Content-Type not application/json (charset, if any,
 *                                   must be utf-8), or a Content-Encoding
 *   429     rate_limited            over the per-minute or per-day limit (Retry-After)
 *   429     key_banned              key temporarily banned (Retry-After = rest of the ban)
 *   500     internal_error          unexpected failure (e.g. the data file became unreadable)
 *   503     service_unavailable     the data file stayed locked by another process (Retry-After: 1)
 *   507     insufficient_storage    a create while the store holds --max-animals animals; nothing stored
 */
export const SANDBOX_ERROR_CODES = {
  invalid_json: 400,
  invalid_body: 400,
  missing_field: 400,
  invalid_field: 400,
  unknown_field: 400,
  invalid_parameter: 400,
  invalid_request: 400,
  unauthorized: 401,
  not_found: 404,
  pet_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  key_banned: 429,
  internal_error: 500,
  service_unavailable: 503,
  insufficient_storage: 507,
} as const;

export type SandboxErrorCode = keyof typeof SANDBOX_ERROR_CODES;

/** A refusal on its way to becoming an Error response. */
export class SandboxHttpError extends Error {
  readonly status: number;

  constructor(
    readonly code: SandboxErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'SandboxHttpError';
    this.status = SANDBOX_ERROR_CODES[code];
  }
}

/** A create refused because the store holds its most animals: nothing was stored. */
export function storeFull(held: number, maxAnimals: number): SandboxHttpError {
  return new SandboxHttpError('insufficient_storage', `the sandbox holds ${held} animals and keeps at most ${maxAnimals} (--max-animals); this one was not created`);
}
