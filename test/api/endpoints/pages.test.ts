import { describe, expect, it } from 'vitest';
import { nextLink } from '../../../src/api/endpoints/pages';
import { InvalidResponseError } from '../../../src/errors';

const PAGE = 'http://127.0.0.1:4010/v1/pets?limit=2';

describe('nextLink (RFC 8288)', () => {
  it.each([
    ['</v1/pets?limit=2&after=2>; rel="next"', 'http://127.0.0.1:4010/v1/pets?limit=2&after=2'],
    ['<pets?after=2>; rel=next', 'http://127.0.0.1:4010/v1/pets?after=2'],
    ['</v1/pets?after=0>; rel="prev", </v1/pets?after=4>; rel="next last"', 'http://127.0.0.1:4010/v1/pets?after=4'],
    ['</v1/pets?after=4>; rel="NEXT"', 'http://127.0.0.1:4010/v1/pets?after=4'],
    ['<https://evil.example/steal>; rel="next"', 'https://evil.example/steal'],
    ['</v1/pets?a=1,2>; title="x, y"; rel="next"', 'http://127.0.0.1:4010/v1/pets?a=1,2'],
  ])('%s', (header, expected) => {
    expect(nextLink(header, PAGE)).toBe(expected);
  });

  it('no header, or no rel="next", means no next page', () => {
    expect(nextLink(undefined, PAGE)).toBeUndefined();
    expect(nextLink('', PAGE)).toBeUndefined();
    expect(nextLink('</v1/pets>; rel="successor-version"', PAGE)).toBeUndefined();
  });

  it('a header that cannot be parsed is an invalid response (exit 7)', () => {
    expect(() => nextLink('garbage', PAGE)).toThrow(InvalidResponseError);
  });
});
