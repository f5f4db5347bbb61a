import { PetctlError, UsageError, describeFsError } from '../../errors';
import { parseInt64 } from '../../schemas/constants';
import { type ApiRequest, isSameOrigin, refuseUserInfo } from '../request';

/** `petctl api`'s flags, all checked before anything is sent (exit 2). After gh api. */
export interface RawRequestFlags {
  path: string;
  method?: string;
  rawFields: string[];
  typedFields: string[];
  input?: string;
  headers: string[];
}

type FieldValue = string | number | bigint | boolean | null;

/** The command's reading of a file or stdin (the core reads neither). */
export interface RawRequestIo {
  readFile(path: string): Promise<Buffer>;
  readStdin(): Promise<Buffer>;
}

/** Headers petctl sets itself: the key goes only where the profile says, and the core identifies itself. */
const RESERVED_HEADERS = new Set(['authorization', 'proxy-authorization', 'user-agent', 'host', 'content-length']);
/** The connection's own, which undici will not send: refused with the flags, before anything is sent. */
const CONNECTION_HEADERS = new Set(['transfer-encoding', 'keep-alive', 'upgrade', 'expect']);

export function parseHeader(text: string): [string, string] {
  const colon = text.indexOf(':');
  const name = colon < 0 ? '' : text.slice(0, colon).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`-H '${text.split(':')[0]}...' is not a header: expected 'Name: value'`);
  if (RESERVED_HEADERS.has(name.toLowerCase())) {
    throw new UsageError(`-H cannot set ${name}: petctl sets it itself`, name.toLowerCase() === 'authorization' ? 'the key comes from the profile: petctl auth login, or PETCTL_API_KEY' : undefined);
  }
  if (CONNECTION_HEADERS.has(name.toLowerCase())) {
    throw new UsageError(`-H cannot set ${name}: it belongs to the connection, which petctl manages`);
  }
  const value = text.slice(colon + 1).trim();
  if (/[\r\n\0]/.test(value)) throw new UsageError(`-H ${name}: the value must be one line`);
  // What a header can carry (RFC 9110 field-value, as undici checks it): text, tab and Latin-1.
  const bad = /[^\t\x20-\x7e\x80-\xff]/u.exec(value)?.[0];
  if (bad) {
    const codePoint = bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    throw new UsageError(`-H ${name}: a header value cannot hold U+${codePoint}`);
  }
  return [name, value];
}

function splitField(text: string, flag: string): [string, string] {
  const equals = text.indexOf('=');
  if (equals <= 0) throw new UsageError(`${flag} '${text}' is not key=value`);
  return [text.slice(0, equals), text.slice(equals + 1)];
}

/** -F's typing: integers stay int64-exact; `true`, `false`, `null`; `@file` is the file's text; anything else a string. */
async function typedValue(text: string, io: RawRequestIo): Promise<FieldValue> {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  const integer = parseInt64(text);
  if (integer !== undefined) return integer;
  if (text.startsWith('@')) return (await readSource(text.slice(1), io, `-F ${text}`)).toString('utf8');
  return text;
}

/** `typed`: the flag and its word as given (`-F @notes.txt`, `--input body.json`), for the error. */
async function readSource(path: string, io: RawRequestIo, typed: string): Promise<Buffer> {
  if (path === '-') return io.readStdin();
  try {
    return await io.readFile(path);
  } catch (error) {
    // Said already: too large to read, or Ctrl-C.
    if (error instanceof PetctlError) throw error;
    throw new UsageError(`cannot read ${typed}: ${describeFsError(error)}`);
  }
}

/** `<path>` relative to the base URL, or absolute on its origin (the key goes nowhere else). A path that starts with
 * the base URL's path (`/v1/pets` under `…/v1`, as the service's documentation writes them) is not sent as
 * `…/v1/v1/pets`. */
export function resolveApiUrl(baseUrl: string, path: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) {
    if (!URL.canParse(path)) throw new UsageError(`'${path}' is not a URL`);
    const url = new URL(path);
    if (!isSameOrigin(url, baseUrl)) {
      // file:, javascript: and a host:port without a scheme have no origin to name (URL calls it 'null').
      const where = url.origin === 'null' ? `'${path}'` : url.origin;
      throw new UsageError(`refusing ${where}: petctl api sends the API key only to the profile's origin, ${new URL(baseUrl).origin}`, 'give a path relative to the base URL, e.g. /pets');
    }
    refuseUserInfo(url, "petctl api's URL", 'give a path relative to the base URL, e.g. /pets');
    return url.toString();
  }
  if (path.startsWith('//')) throw new UsageError(`'${path}' is not a path relative to the base URL`, 'e.g. /pets');
  return new URL(`${baseUrl}/${withoutBasePath(path.replace(/^\/+/, ''), new URL(baseUrl).pathname)}`).toString();
}

/** Under `/v1`, `v1/pets` and `v1?x=1` lose `v1`, `v10/pets` and `v1pets` keep it. */
function withoutBasePath(relative: string, basePath: string): string {
  const prefix = basePath.replace(/^\/+|\/+$/g, '');
  if (prefix === '' || !relative.startsWith(prefix)) return relative;
  const rest = relative.slice(prefix.length);
  return rest === '' || /^[/?#]/.test(rest) ? rest.replace(/^\/+/, '') : relative;
}

/** The checks that need nothing from the profile. */
export function checkFlags(flags: RawRequestFlags): { method: string; headers: Record<string, string> } {
  const hasBody = flags.rawFields.length + flags.typedFields.length > 0 || flags.input !== undefined;
  const method = (flags.method ?? (hasBody ? 'POST' : 'GET')).toUpperCase();
  if (!/^[A-Za-z]+$/.test(method)) throw new UsageError(`-X '${flags.method}' is not an HTTP method`);
  // undici sends no CONNECT as a request: it asks a proxy for a tunnel.
  if (method === 'CONNECT') {
    throw new UsageError('-X CONNECT opens a tunnel through a proxy; petctl api sends requests');
  }
  for (const field of flags.rawFields) splitField(field, '-f');
  const stdinFields = flags.typedFields.filter((field) => splitField(field, '-F')[1] === '@-').length;
  const fromStdin = stdinFields + (flags.input === '-' ? 1 : 0);
  // The second would read nothing, and send an empty value or body.
  if (fromStdin > 1) throw new UsageError('standard input can be read only once: give @- or --input - to one flag');
  return { method, headers: Object.fromEntries(flags.headers.map(parseHeader)) };
}

/** The request: fields become query parameters for GET (and, as in gh, beside --input's body), else a JSON object body. */
export async function buildRawRequest(flags: RawRequestFlags, baseUrl: string, io: RawRequestIo): Promise<ApiRequest> {
  const { method, headers } = checkFlags(flags);
  const url = new URL(resolveApiUrl(baseUrl, flags.path));
  const typed = flags.typedFields.map(async (field): Promise<[string, FieldValue]> => {
    const [key, text] = splitField(field, '-F');
    return [key, await typedValue(text, io)];
  });
  const fields = [...flags.rawFields.map((field) => splitField(field, '-f')), ...(await Promise.all(typed))];
  const rawBody = flags.input === undefined ? undefined : await readSource(flags.input, io, `--input ${flags.input}`);
  const request: ApiRequest = { method, path: url.pathname, url: url.toString(), headers, rawResponse: true };
  if (method === 'GET' || rawBody !== undefined) {
    for (const [key, value] of fields) url.searchParams.append(key, value === null ? '' : String(value));
    request.url = url.toString();
    if (rawBody !== undefined) request.rawBody = rawBody;
  } else if (fields.length > 0) {
    request.body = Object.fromEntries(fields);
  }
  return request;
}
