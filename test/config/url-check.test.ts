import { describe, expect, it } from 'vitest';
import { isLoopbackHost, validateBaseUrl } from '../../src/config/url-check';
import { UsageError } from '../../src/errors';
import { thrown } from '../helpers/thrown';

const refusal = (raw: string, label?: string) => thrown(() => validateBaseUrl(raw, label), UsageError);

describe('validateBaseUrl', () => {
  it.each([
    ['https://api.example.org/v1', 'https://api.example.org/v1'],
    ['https://api.example.org/v1/', 'https://api.example.org/v1'],
    ['https://api.example.org/v1//', 'https://api.example.org/v1'],
    ['https://api.example.org', 'https://api.example.org'],
    ['https://api.example.org/', 'https://api.example.org'],
    ['HTTPS://API.Example.ORG:443/v1', 'https://api.example.org/v1'],
    ['https://api.example.org:8443/v1', 'https://api.example.org:8443/v1'],
    ['  https://api.example.org/v1  ', 'https://api.example.org/v1'],
    ['http://127.0.0.1:8080/v1', 'http://127.0.0.1:8080/v1'],
    ['http://127.0.0.5', 'http://127.0.0.5'],
    ['http://127.255.255.254/v1', 'http://127.255.255.254/v1'],
    ['http://127.1/v1', 'http://127.0.0.1/v1'],
    ['http://[::1]:8080/v1', 'http://[::1]:8080/v1'],
    ['http://[0:0:0:0:0:0:0:1]/v1', 'http://[::1]/v1'],
    ['http://localhost', 'http://localhost'],
    ['http://LOCALHOST:3000/v1/', 'http://localhost:3000/v1'],
  ])('accepts %s as %s', (raw, normalised) => {
    expect(validateBaseUrl(raw)).toBe(normalised);
  });

  it.each([
    ['http://example.org/v1', /clear text/],
    ['http://api.example.org:80/v1', /clear text/],
    ['http://10.0.0.1/v1', /clear text/],
    ['http://0.0.0.0:8080', /clear text/],
    ['http://128.0.0.1', /clear text/],
    ['http://[::2]/v1', /clear text/],
    ['http://[::ffff:127.0.0.1]/v1', /clear text/],
    ['http://localhost.example.org', /clear text/],
    ['http://app.localhost', /clear text/],
    ['http://127.0.0.1.nip.io', /clear text/],
    ['ftp://example.org/v1', /must use https/],
    ['file:///etc/passwd', /must use https/],
    ['ws://localhost/v1', /must use https/],
    ['https://user:pass@api.example.org/v1', /user name or password/],
    ['https://user@api.example.org/v1', /user name or password/],
    ['http://user:pass@localhost/v1', /user name or password/],
    ['https://api.example.org/v1?x=1', /query/],
    ['https://api.example.org/v1?', /query/],
    ['https://api.example.org/v1#top', /fragment/],
    ['https://api.example.org/v1#', /fragment/],
    ['api.example.org/v1', /not an absolute URL/],
    ['', /not an absolute URL/],
    ['https://', /not an absolute URL/],
  ])('refuses %s', (raw, why) => {
    expect(refusal(raw).message).toMatch(why);
  });

  it('says why plain http is refused and where it is allowed', () => {
    const error = refusal('http://example.org/v1');
    expect(error.message).toContain('example.org');
    expect(error.message).toContain('https://');
    expect(error.hint).toMatch(/loopback/);
    expect(error.exitCode).toBe(2);
  });

  it('never echoes credentials, queries or unparsable input', () => {
    expect(refusal('https://alice:s3cret@api.example.org/v1').message).not.toMatch(/alice|s3cret/);
    expect(refusal('https://api.example.org/v1?api_key=s3cret').message).not.toContain('s3cret');
    expect(refusal('sk_live_s3cret').message).not.toContain('s3cret');
  });

  it('names the source it was given', () => {
    expect(refusal('http://example.org', 'PETCTL_BASE_URL').message).toMatch(/^PETCTL_BASE_URL /);
    expect(refusal('nope').message).toMatch(/^base URL /);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['LocalHost', true],
    ['127.0.0.1', true],
    ['127.0.0.5', true],
    ['127.255.255.255', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['[0::1]', true],
    ['128.0.0.1', false],
    ['10.0.0.1', false],
    ['0.0.0.0', false],
    ['::', false],
    ['[::2]', false],
    ['localhost.', false],
    ['foo.localhost', false],
    ['127.0.0.1.nip.io', false],
    ['127.0.0.256', false],
    ['example.org', false],
    ['', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
