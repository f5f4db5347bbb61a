import { expect, it } from 'vitest';
import { isLoopbackHost, validateBaseUrl } from '../../src/config/url-check';
import { UsageError } from '../../src/errors';
import { thrown } from '../helpers/thrown';

const refusal = (raw: string, label?: string) => thrown(() => validateBaseUrl(raw, label), UsageError);

const unchanged = ['https://api.example.org/v1', 'https://api.example.org', 'https://api.example.org:8443/v1'];
unchanged.push('http://127.0.0.1:8080/v1', 'http://127.0.0.5', 'http://127.255.255.254/v1', 'http://[::1]:8080/v1');
unchanged.push('http://localhost');
it.each([
  ...unchanged.map((url) => [url, url]),
  ['https://api.example.org/v1/', 'https://api.example.org/v1'],
  ['https://api.example.org/v1//', 'https://api.example.org/v1'],
  ['https://api.example.org/', 'https://api.example.org'],
  ['HTTPS://API.Example.ORG:443/v1', 'https://api.example.org/v1'],
  ['  https://api.example.org/v1  ', 'https://api.example.org/v1'],
  ['http://127.1/v1', 'http://127.0.0.1/v1'],
  ['http://[0:0:0:0:0:0:0:1]/v1', 'http://[::1]/v1'],
  ['http://LOCALHOST:3000/v1/', 'http://localhost:3000/v1'],
])('validateBaseUrl accepts %s as %s', (raw, normalised) => {
  expect(validateBaseUrl(raw)).toBe(normalised);
});

const refused = (why: RegExp, urls: string[]) => urls.map((url) => [url, why] as const);
it.each([
  ...refused(/clear text/, ['http://example.org/v1', 'http://api.example.org:80/v1', 'http://10.0.0.1/v1']),
  ...refused(/clear text/, ['http://0.0.0.0:8080', 'http://128.0.0.1', 'http://[::2]/v1', 'http://[::ffff:127.0.0.1]/v1']),
  ...refused(/clear text/, ['http://localhost.example.org', 'http://app.localhost', 'http://127.0.0.1.nip.io']),
  ...refused(/must use https/, ['ftp://example.org/v1', 'file:///etc/passwd', 'ws://localhost/v1']),
  ...refused(/user name or password/, ['https://user:pass@api.example.org/v1', 'https://user@api.example.org/v1']),
  ...refused(/user name or password/, ['http://user:pass@localhost/v1']),
  ...refused(/query/, ['https://api.example.org/v1?x=1', 'https://api.example.org/v1?']),
  ...refused(/fragment/, ['https://api.example.org/v1#top', 'https://api.example.org/v1#']),
  ...refused(/not an absolute URL/, ['api.example.org/v1', '', 'https://']),
])('validateBaseUrl refuses %s', (raw, why) => {
  expect(refusal(raw).message).toMatch(why);
});

it('validateBaseUrl says why plain http is refused and where it is allowed, names its source, echoes no secret', () => {
  const error = refusal('http://example.org/v1', 'PETCTL_BASE_URL');
  expect(error).toMatchObject({ exitCode: 2, hint: expect.stringMatching(/loopback/) });
  expect(error.message).toMatch(/^PETCTL_BASE_URL .*example\.org.*https:\/\//);
  expect(refusal('nope').message).toMatch(/^base URL /);
  // Credentials, queries and unparsable input are never echoed.
  expect(refusal('https://alice:s3cret@api.example.org/v1').message).not.toMatch(/alice|s3cret/);
  expect(refusal('https://api.example.org/v1?api_key=s3cret').message).not.toContain('s3cret');
  expect(refusal('sk_live_s3cret').message).not.toContain('s3cret');
});

const loopback = ['localhost', 'LocalHost', '127.0.0.1', '127.0.0.5', '127.255.255.255', '::1', '[::1]'];
loopback.push('0:0:0:0:0:0:0:1', '[0::1]');
const notLoopback = ['128.0.0.1', '10.0.0.1', '0.0.0.0', '::', '[::2]', 'localhost.', 'foo.localhost'];
notLoopback.push('127.0.0.1.nip.io', '127.0.0.256', 'example.org', '');
const hosts = [...loopback.map((host) => [host, true] as const), ...notLoopback.map((host) => [host, false] as const)];
it.each(hosts)('isLoopbackHost(%j) is %s', (host, is) => {
  expect(isLoopbackHost(host)).toBe(is);
});
