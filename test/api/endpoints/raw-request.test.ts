import { describe, expect, it } from 'vitest';
import { type RawRequestFlags, buildRawRequest, checkFlags, parseHeader, resolveApiUrl } from '../../../src/api/endpoints/raw-request';
import { UsageError } from '../../../src/errors';
import { stringifyJson } from '../../../src/schemas/json';

const BASE = 'https://api.example.org/v1';
const files: Record<string, string> = { 'note.txt': 'hello\nworld\n', 'body.json': '{"name":"Rex","categoryId":9007199254740993}' };
const io = {
  readFile: async (path: string) => {
    if (!(path in files)) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
    return Buffer.from(files[path]!);
  },
  readStdin: async () => Buffer.from('from stdin'),
};

function flags(overrides: Partial<RawRequestFlags>): RawRequestFlags {
  return { path: '/pets', rawFields: [], typedFields: [], headers: [], ...overrides };
}

describe('petctl api: paths', () => {
  it.each([
    ['/pets', BASE, 'https://api.example.org/v1/pets'],
    ['pets', BASE, 'https://api.example.org/v1/pets'],
    ['/store/orders?x=1', BASE, 'https://api.example.org/v1/store/orders?x=1'],
    ['https://api.example.org/v1/pets?limit=1', BASE, 'https://api.example.org/v1/pets?limit=1'],
    ['https://API.example.org:443/other', BASE, 'https://api.example.org/other'],
    ['/v1/pets', BASE, 'https://api.example.org/v1/pets'],
    ['v1/pets', BASE, 'https://api.example.org/v1/pets'],
    ['/v1', BASE, 'https://api.example.org/v1/'],
    ['/v1?limit=5', BASE, 'https://api.example.org/v1/?limit=5'],
    ['/api/v1/pets', 'https://api.example.org/api/v1', 'https://api.example.org/api/v1/pets'],
    // Only whole segments of the base path, and only all of them, count.
    ['/v10/pets', BASE, 'https://api.example.org/v1/v10/pets'],
    ['/v1pets', BASE, 'https://api.example.org/v1/v1pets'],
    ['/V1/pets', BASE, 'https://api.example.org/v1/V1/pets'],
    ['/v1/pets', 'https://api.example.org/api/v1', 'https://api.example.org/api/v1/v1/pets'],
    ['/v1/pets', 'https://api.example.org', 'https://api.example.org/v1/pets'],
    // A path under the base path once more is sent once more: the service's own /v1/v1 is reached by an absolute URL.
    ['/v1/v1/pets', BASE, 'https://api.example.org/v1/v1/pets'],
    ['https://api.example.org/v1/v1/pets', BASE, 'https://api.example.org/v1/v1/pets'],
  ])('%s under %s is sent to %s', (path, base, url) => {
    expect(resolveApiUrl(base, path)).toBe(url);
  });

  // The one same-origin rule (isSameOrigin): scheme, host in any case, and port, the default one written or not (above).
  const elsewhere = ['https://evil.example/v1/pets', 'http://api.example.org/v1/pets', 'https://api.example.org.evil.example/v1'];
  it.each([...elsewhere, 'https://api.example.org:8443/v1', '//evil.example/pets'])(
    'refuses %s (another origin) with a usage error',
    (path) => {
      expect(() => resolveApiUrl(BASE, path)).toThrow(UsageError);
    },
  );

  const withCredentials = ['https://user:hunter2@api.example.org/v1/pets', 'https://hunter2@api.example.org/v1/pets'];
  it.each(withCredentials)('refuses %s: no user or password, and never repeated', (path) => {
    const refusal = new UsageError(
      "petctl api's URL must not contain a user name or password",
      'give a path relative to the base URL, e.g. /pets',
    );
    expect(() => resolveApiUrl(BASE, path)).toThrow(refusal);
  });

  it.each(['file:///etc/passwd', 'localhost:4010/pets'])('refuses %s, a URL without an origin, naming it as typed', (path) => {
    expect(() => resolveApiUrl(BASE, path)).toThrow(`refusing '${path}': petctl api sends the API key only to the profile's origin, https://api.example.org`);
  });
});

describe('petctl api: headers and method', () => {
  it('parses Name: value', () => {
    expect(parseHeader('X-Trace:  abc ')).toEqual(['X-Trace', 'abc']);
    expect(parseHeader('Accept: text/plain')).toEqual(['Accept', 'text/plain']);
  });

  it.each(['Authorization: Bearer other', 'authorization: x', 'User-Agent: x', 'Host: evil', 'no-colon', ': empty name'])('refuses -H %s', (header) => {
    expect(() => parseHeader(header)).toThrow(UsageError);
  });

  // undici refuses to send these: the send loop took that for a network failure, retried it 4 times and exited 7.
  it.each([
    ['Transfer-Encoding: chunked', '-H cannot set Transfer-Encoding: it belongs to the connection, which petctl manages'],
    ['expect: 100-continue', '-H cannot set expect: it belongs to the connection, which petctl manages'],
    ['Upgrade: websocket', '-H cannot set Upgrade: it belongs to the connection, which petctl manages'],
    ['Keep-Alive: 5', '-H cannot set Keep-Alive: it belongs to the connection, which petctl manages'],
    ['X-Price: 5 €', '-H X-Price: a header value cannot hold U+20AC'],
    ['X-Bell: a\u0007b', '-H X-Bell: a header value cannot hold U+0007'],
  ])('refuses -H %s, which no request could carry: %s', (header, message) => {
    expect(() => parseHeader(header)).toThrow(new UsageError(message));
  });

  it('keeps what a header can carry: Latin-1, a tab inside, Connection: close', () => {
    expect(parseHeader('X-Name: Zoë\tII')).toEqual(['X-Name', 'Zoë\tII']);
    expect(parseHeader('Connection: close')).toEqual(['Connection', 'close']);
  });

  it('defaults to GET, POST with fields or --input, and takes any method', () => {
    expect(checkFlags(flags({})).method).toBe('GET');
    expect(checkFlags(flags({ rawFields: ['a=b'] })).method).toBe('POST');
    expect(checkFlags(flags({ input: 'body.json' })).method).toBe('POST');
    expect(checkFlags(flags({ method: 'patch' })).method).toBe('PATCH');
    expect(() => checkFlags(flags({ method: 'GET /x' }))).toThrow(UsageError);
    // undici refuses it: exit 7 'invalid method (network_error)' before.
    expect(() => checkFlags(flags({ method: 'connect' }))).toThrow('-X CONNECT opens a tunnel through a proxy; petctl api sends requests');
    expect(() => checkFlags(flags({ rawFields: ['novalue'] }))).toThrow(/key=value/);
    // Standard input read twice gave the second an empty value or body, sent as such.
    const twice = 'standard input can be read only once: give @- or --input - to one flag';
    expect(() => checkFlags(flags({ typedFields: ['a=@-', 'b=@-'] }))).toThrow(twice);
    expect(() => checkFlags(flags({ typedFields: ['a=@-'], input: '-' }))).toThrow(twice);
    expect(checkFlags(flags({ typedFields: ['a=@-'], rawFields: ['b=@-'], input: 'body.json' })).method).toBe('POST');
  });
});

describe('petctl api: fields', () => {
  it('-F types values: int64 exact, booleans, null, @file; -f keeps strings', async () => {
    const request = await buildRawRequest(
      flags({
        rawFields: ['name=Rex', 'count=12'],
        typedFields: ['categoryId=9007199254740993', 'small=7', 'ok=true', 'no=false', 'none=null', 'note=@note.txt', 'text=1.5'],
      }),
      BASE,
      io,
    );
    expect(request.method).toBe('POST');
    expect(stringifyJson(request.body)).toBe(
      '{"name":"Rex","count":"12","categoryId":9007199254740993,"small":7,"ok":true,"no":false,"none":null,"note":"hello\\nworld\\n","text":"1.5"}',
    );
  });

  it('with GET, fields become query parameters', async () => {
    const request = await buildRawRequest(flags({ method: 'GET', path: '/pets?x=1', rawFields: ['status=sold'], typedFields: ['limit=5', 'id=9007199254740993'] }), BASE, io);
    expect(request.url).toBe('https://api.example.org/v1/pets?x=1&status=sold&limit=5&id=9007199254740993');
    expect(request.body).toBeUndefined();
  });

  it('--input sends the file as is, and the fields go in the query', async () => {
    const request = await buildRawRequest(flags({ input: 'body.json', rawFields: ['dry=1'] }), BASE, io);
    expect(request.rawBody?.toString()).toBe(files['body.json']);
    expect(request.url).toBe('https://api.example.org/v1/pets?dry=1');
    expect((await buildRawRequest(flags({ input: '-' }), BASE, io)).rawBody?.toString()).toBe('from stdin');
  });

  it('a missing @file or --input file is a usage error', async () => {
    await expect(buildRawRequest(flags({ typedFields: ['a=@missing'] }), BASE, io)).rejects.toThrow('cannot read -F @missing: no such file');
    const input = buildRawRequest(flags({ input: 'missing' }), BASE, io);
    await expect(input).rejects.toThrow(UsageError);
    // The path as typed: --input takes no @.
    await expect(input).rejects.toThrow(/^cannot read --input missing: no such file$/);
  });
});
