import { describe, expect, test } from 'vitest';
import { renderCsv, type CsvColumn } from '../../src/output/csv';

interface Row {
  name: string;
  note?: string;
}
const columns: CsvColumn<Row>[] = [
  { header: 'name', value: (row) => row.name },
  { header: 'note', value: (row) => row.note },
];

describe('renderCsv', () => {
  test('a header line, then rows, LF line endings', () => {
    expect(renderCsv(columns, [{ name: 'Rex', note: 'good' }])).toBe('name,note\nRex,good\n');
  });

  test('quotes a comma and doubles inner quotes (RFC 4180)', () => {
    expect(renderCsv(columns, [{ name: 'Rex, "the" dog', note: 'x' }])).toBe(
      'name,note\n"Rex, ""the"" dog",x\n',
    );
  });

  test('quotes LF, CR and CRLF and keeps them verbatim', () => {
    expect(
      renderCsv(columns, [
        { name: 'two\nlines', note: 'a' },
        { name: 'carriage\rreturn', note: 'b' },
        { name: 'windows\r\nline', note: 'c' },
      ]),
    ).toBe('name,note\n"two\nlines",a\n"carriage\rreturn",b\n"windows\r\nline",c\n');
  });

  test('a missing value is an empty field', () => {
    expect(renderCsv(columns, [{ name: 'Rex' }])).toBe('name,note\nRex,\n');
  });

  test('does not quote what needs no quoting', () => {
    expect(renderCsv(columns, [{ name: "O'Brien the dog", note: ' spaced ' }])).toBe(
      "name,note\nO'Brien the dog, spaced \n",
    );
  });

  test('no rows: just the header line', () => {
    expect(renderCsv(columns, [])).toBe('name,note\n');
  });
});
