import { beforeAll, describe, expect, test } from 'vitest';
import { loadTable, renderOptions, renderRecord, renderRecords, type RecordColumn } from '../../src/output/records';
import { createTestTerminal } from '../helpers/terminal';

// A terminal's table is drawn by a renderer loaded on demand (records.ts).
beforeAll(loadTable);

const rows = [
  { name: 'production', baseUrl: 'https://api.example.org/v1', active: true },
  { name: 'staging', baseUrl: 'https://staging.example.org/v1', active: false },
];

const columns: RecordColumn<(typeof rows)[number]>[] = [
  { key: 'name', header: 'NAME', value: (row) => row.name },
  { key: 'baseUrl', header: 'BASE URL', value: (row) => row.baseUrl },
  { key: 'active', header: 'ACTIVE', value: (row) => (row.active ? 'yes' : undefined) },
];

// Layouts with real columns (headers, JSON types, csv keys, one record's object) are pets.test.ts's.
describe('renderRecords', () => {
  test('table off a TTY is TSV', () => {
    // As gh prints it piped: no header, `-` for a missing value, and never a colour or a cut, whatever the level and width.
    expect(renderRecords(columns, rows, 'table', { tty: false, level: 3, width: 20 })).toBe(
      'production\thttps://api.example.org/v1\tyes\nstaging\thttps://staging.example.org/v1\t-\n',
    );
  });

  // "Nothing found" is the caller's to say on stderr.
  test.each([
    ['table', true, ''],
    ['table', false, ''],
    ['ndjson', false, ''],
    ['json', false, '[]\n'],
    ['csv', false, 'name,baseUrl,active\n'],
  ] as const)('no rows, %s (tty %s)', (format, tty, expected) => {
    expect(renderRecords(columns, [], format, { tty, level: 1 })).toBe(expected);
  });

  describe('outside text: escaped on a terminal, exact bytes when piped', () => {
    const hostile = `Rex\u001b]0;PWNED\u0007\u001b]52;c;eA==\u0007\u001b[2J\rEVIL\u202e`;
    const pets = [{ name: hostile, baseUrl: 'a\tb\nc', active: true }];

    // A terminal's table: table.test.ts "a cell never spans lines and shows control and bidi characters as visible escapes".
    test.each([
      // `cut -f2` keeps working.
      ['TSV off a TTY keeps the bytes, except tabs and line breaks, which become spaces', 'table', false, `${hostile.replace('\r', ' ')}\ta b c\tyes\n`],
      ['csv off a TTY keeps the exact bytes, quoted as RFC 4180 says', 'csv', false, `name,baseUrl,active\n"${hostile}","a\tb\nc",yes\n`],
      [
        'csv on a TTY shows visible escapes, keeping the tabs and newlines csv quotes',
        'csv',
        true,
        'name,baseUrl,active\nRex\\x1b]0;PWNED\\x07\\x1b]52;c;eA==\\x07\\x1b[2J\\rEVIL\\u202e,"a\tb\nc",yes\n',
      ],
    ] as const)('%s', (_title, format, tty, expected) => {
      expect(renderRecords(columns, pets, format, { tty, level: 0 })).toBe(expected);
    });
  });
});

// json prints the object, not an array: pets.test.ts "a single pet".
test.each(['table', 'csv', 'ndjson'] as const)('renderRecord: other formats print it as a one-row list: %s', (format) => {
  expect(renderRecord(columns, rows[1]!, format, { tty: false, level: 0 })).toBe(renderRecords(columns, [rows[1]!], format, { tty: false, level: 0 }));
});

test.each<[string, Parameters<typeof createTestTerminal>[0], object]>([
  ['a TTY: table, its width, colour from the environment', { stdoutTTY: true, stdoutColumns: 120, env: { TERM: 'xterm-256color' } }, { tty: true, level: 2, width: 120 }],
  ['a pipe: no colour and no width, even with FORCE_COLOR', { stdoutTTY: false, stdoutColumns: 80, env: { FORCE_COLOR: '3' } }, { tty: false, level: 0 }],
  ['--no-color on a TTY', { stdoutTTY: true, stdoutColumns: 80, env: { TERM: 'xterm' }, color: false }, { tty: true, level: 0, width: 80 }],
  ['a TTY that reports no width: no truncation', { stdoutTTY: true, stdoutColumns: 0, env: { NO_COLOR: '1' } }, { tty: true, level: 0 }],
])('renderOptions: %s', (_title, terminal, expected) => {
  expect(renderOptions({ terminal: createTestTerminal(terminal).terminal })).toEqual(expected);
});
