import { describe, expect, test } from 'vitest';
import displayWidth from 'string-width';
import { truncateToWidth } from '../../src/output/table';

describe('displayWidth', () => {
  test.each([
    ['', 0],
    ['Rex', 3],
    ['犬', 2],
    ['ポチ', 4],
    ['🐶', 2],
    ['e\u0301', 1], // e + combining acute accent
    ['👨‍👩‍👧', 2], // one ZWJ sequence
    ['a\u200bb', 2], // zero-width space
    ['©', 1], // pictographic, but text presentation
  ])('%j is %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe('truncateToWidth', () => {
  test('leaves text that fits', () => {
    expect(truncateToWidth('Rex', 3)).toBe('Rex');
  });

  test('cuts and ends with an ellipsis within the width', () => {
    expect(truncateToWidth('Rexington', 5)).toBe('Rexi…');
  });

  test('never splits a wide character', () => {
    const cut = truncateToWidth('犬犬犬', 4);
    expect(cut).toBe('犬…');
    expect(displayWidth(cut)).toBeLessThanOrEqual(4);
  });

  test('never splits a grapheme cluster', () => {
    expect(truncateToWidth('e\u0301e\u0301e\u0301', 2)).toBe('e\u0301…');
  });
});
