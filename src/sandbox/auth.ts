import { SandboxHttpError } from './errors';
import type { SandboxKey } from './keys';

export const AUTH_REALM = 'petctl-sandbox';

/**
 * HTTP bearer authentication (RFC 6750), its challenge as §3 says. Several
 * Authorization headers or credentials (RFC 9110 §11.6.2 allows one) are
 * ambiguous: 400 `invalid_request`, never "the first one wins". `rawHeaders`,
 * because node keeps only the first of repeated headers in `request.headers`.
 */
export function authenticate(rawHeaders: readonly string[], keys: readonly SandboxKey[]): SandboxKey {
  let header: string | undefined;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    if (name.length !== 13 || name.toLowerCase() !== 'authorization') continue;
    if (header !== undefined) {
      throw new SandboxHttpError('invalid_request', 'send exactly one Authorization header; this request has more than one');
    }
    header = rawHeaders[index + 1] as string;
  }
  if (header === undefined || header.trim() === '') {
    throw unauthorized('an API key is required: send Authorization: Bearer <key>');
  }
  if (header.includes(',')) {
    throw new SandboxHttpError('invalid_request', 'the Authorization header holds more than one credential; send exactly one: Authorization: Bearer <key>');
  }
  const match = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?: +(.*))?$/.exec(header.trim());
  if (!match || match[1]?.toLowerCase() !== 'bearer') {
    throw unauthorized('the Authorization header must use the Bearer scheme: Authorization: Bearer <key>');
  }
  const token = match[2] ?? '';
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) {
    throw unauthorized('the Authorization header is malformed: expected Authorization: Bearer <key>', 'invalid_request');
  }
  const key = keys.find((candidate) => candidate.key === token);
  if (!key) throw unauthorized('the API key is not valid', 'invalid_token');
  return key;
}

function unauthorized(message: string, error?: 'invalid_request' | 'invalid_token'): SandboxHttpError {
  const challenge = `Bearer realm="${AUTH_REALM}"${error ? `, error="${error}"` : ''}`;
  return new SandboxHttpError('unauthorized', message, { 'WWW-Authenticate': challenge });
}
