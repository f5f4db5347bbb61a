import { stripVTControlCharacters } from 'node:util';
import { describe, expect, test } from 'vitest';
import { renderTable } from '../../src/output/table';
import { type Column, renderTsv } from '../../src/output/tsv';
import displayWidth from 'string-width';

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

const rows: Row[] = [
  { code: 'a', label: 'Alpha', note: 'first' },
  { code: 'bb', label: 'Bravo', note: undefined },
];

const ESC = '\u001b';

describe('renderTable', () => {
  test('borderless, header first, columns two spaces apart, no trailing blanks', () => {
    expect(renderTable(columns, rows, { level: 0 })).toBe(
      'CODE  LABEL  NOTE\n' + //
        'a     Alpha  first\n' +
        'bb    Bravo  -\n',
    );
  });

  test('no colour codes at level 0', () => {
    expect(renderTable(columns, rows, { level: 0 })).not.toContain(ESC);
  });

  test('bold header and coloured cells at level 1, same text underneath', () => {
    const coloured = renderTable(columns, rows, { level: 1 });
    expect(coloured).toContain(`${ESC}[1mCODE${ESC}[22m`);
    expect(coloured).toContain(`${ESC}[31mAlpha${ESC}[39m`);
    expect(stripVTControlCharacters(coloured)).toBe(renderTable(columns, rows, { level: 0 }));
  });

  test('no rows gives an empty string', () => {
    expect(renderTable(columns, [], { level: 1 })).toBe('');
  });

  test('a cell never spans lines and shows control and bidi characters as visible escapes', () => {
    const out = renderTable(columns, [{ code: 'x', label: `two\nlines\tand${ESC}[2J\r\u202e` }], { level: 0 });
    expect(out).toBe(`CODE  LABEL${' '.repeat(27)}NOTE\nx     two\\nlines\\tand\\x1b[2J\\r\\u202e  -\n`);
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/);
  });

  test('without a marked column, the widest column gives way', () => {
    const wide: Row[] = [{ code: 'c1', label: 'x'.repeat(30), note: 'short' }];
    const out = renderTable(columns, wide, { level: 0, width: 20 });
    expect(out).toBe('CODE  LABEL    NOTE\nc1    xxxxxx…  short\n');
  });

  test('colours after truncating, so the reset code survives', () => {
    const wide: Row[] = [{ code: 'c1', label: 'Rexington the Third', note: 'n' }];
    const out = renderTable(columns, wide, { level: 1, width: 20 });
    expect(out).toContain(`${ESC}[31mRexingt…${ESC}[39m`);
    for (const line of stripVTControlCharacters(out).trimEnd().split('\n')) {
      expect(displayWidth(line)).toBeLessThanOrEqual(20);
    }
  });
});

describe('renderTsv', () => {
  test('no header, tab-separated, one row per line, trailing newline, `-` for missing', () => {
    expect(renderTsv(columns, rows)).toBe('a\tAlpha\tfirst\nbb\tBravo\t-\n');
  });

  test('never truncates and never colours', () => {
    const long = 'y'.repeat(500);
    expect(renderTsv(columns, [{ code: 'c', label: long, note: 'n' }])).toBe(`c\t${long}\tn\n`);
  });

  test('no rows gives an empty string', () => {
    expect(renderTsv(columns, [])).toBe('');
  });
});
