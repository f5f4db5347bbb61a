import { stripVTControlCharacters } from 'node:util';
import { describe, expect, test } from 'vitest';
import { renderTable, truncateToWidth } from '../../src/output/table';
import type { Column } from '../../src/output/formats';
import displayWidth from 'string-width';

/** The terminal's table; no rows, and TSV off a terminal, are records.test.ts's. */

interface Row {
  code: string;
  label: string;
  note?: string;
}

const columns: Column<Row>[] = [
  { header: 'CODE', value: (row) => row.code },
  { header: 'LABEL', value: (row) => row.label, color: (_row, chalk) => chalk.red },
  { header: 'NOTE', value: (row) => row.note },
];

const ESC = '\u001b';

describe('renderTable', () => {
  // The layout, and its colours at levels 0 and 1: pets.test.ts "table on a TTY".
  test('a cell never spans lines and shows control and bidi characters as visible escapes', () => {
    const out = renderTable(columns, [{ code: 'x', label: `two\nlines\tand${ESC}[2J\r\u202e` }], { level: 0 });
    expect(out).toBe(`CODE  LABEL${' '.repeat(27)}NOTE\nx     two\\nlines\\tand\\x1b[2J\\r\\u202e  -\n`);
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/);
  });

  test.each([
    ['without a marked column, the widest column gives way', 20, 'x'.repeat(30), 'CODE  LABEL    NOTE\nc1    xxxxxx…  short\n'],
    ['no width: nothing is truncated', undefined, 'n'.repeat(200), `CODE  LABEL${' '.repeat(197)}NOTE\nc1    ${'n'.repeat(200)}  short\n`],
  ])('%s', (_title, width, label, expected) => {
    expect(renderTable(columns, [{ code: 'c1', label, note: 'short' }], { level: 0, width })).toBe(expected);
  });

  test('colours after truncating, so the reset code survives; level 3 with truecolor codes', () => {
    const hex: Column<Row>[] = [{ header: 'CODE', value: (row) => row.code, color: (_row, chalk) => chalk.hex('#ff0000') }];
    expect(renderTable(hex, [{ code: 'ok', label: '' }], { level: 3 })).toBe('\u001b[1mCODE\u001b[22m\n\u001b[38;2;255;0;0mok\u001b[39m\n');
    const wide: Row[] = [{ code: 'c1', label: 'Rexington the Third', note: 'n' }];
    const out = renderTable(columns, wide, { level: 1, width: 20 });
    expect(out).toContain(`${ESC}[31mRexingt…${ESC}[39m`);
    for (const line of stripVTControlCharacters(out).trimEnd().split('\n')) {
      expect(displayWidth(line)).toBeLessThanOrEqual(20);
    }
  });
});

// A cell's width in columns is string-width's (wide characters, emoji, combining marks, zero-width spaces).
test.each([
  ['leaves text that fits', 'Rex', 3, 'Rex'],
  ['cuts and ends with an ellipsis within the width', 'Rexington', 5, 'Rexi…'],
  ['never splits a wide character', '犬犬犬', 4, '犬…'],
  ['never splits a grapheme cluster', 'e\u0301e\u0301e\u0301', 2, 'e\u0301…'],
])('truncateToWidth: %s', (_title, text, width, cut) => {
  expect(truncateToWidth(text, width)).toBe(cut);
  expect(displayWidth(cut)).toBeLessThanOrEqual(width);
});
