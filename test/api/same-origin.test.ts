import { describe, expect, it } from 'vitest';
import { isSameOrigin } from '../../src/api/request';

describe('isSameOrigin: where the API key may go', () => {
  const base = 'https://api.example.org/v1';
  it.each([
    ['https://api.example.org/v1/pets?after=5', true],
    ['https://api.example.org:443/other', true],
    ['https://API.example.org/v1/pets', true],
    ['http://api.example.org/v1/pets', false],
    ['https://api.example.org:8443/v1/pets', false],
    ['https://evil.example/v1/pets', false],
    ['https://api.example.org.evil.example/v1', false],
  ])('%s → %s', (url, same) => {
    expect(isSameOrigin(url, base)).toBe(same);
  });
});
