import { beforeAll, describe, expect, test } from 'vitest';
import { OUTPUT_FORMATS } from '../../src/output/format';
import { loadTable, renderRecord, renderRecords, type RecordColumn } from '../../src/output/records';

// A terminal's table is drawn by a renderer loaded on demand (records.ts).
beforeAll(loadTable);

interface ProfileRow {
  name: string;
  baseUrl: string;
  active: boolean;
}

const columns: RecordColumn<ProfileRow>[] = [
  { key: 'name', header: 'NAME', value: (row) => row.name },
  { key: 'baseUrl', header: 'BASE URL', value: (row) => row.baseUrl },
  { key: 'active', header: 'ACTIVE', value: (row) => (row.active ? 'yes' : undefined) },
];

const rows: ProfileRow[] = [
  { name: 'production', baseUrl: 'https://api.example.org/v1', active: true },
  { name: 'staging', baseUrl: 'https://staging.example.org/v1', active: false },
];

describe('renderRecords', () => {
  test('table on a TTY uses the headers', () => {
    expect(renderRecords(columns, rows, 'table', { tty: true, level: 0 })).toBe(
      'NAME        BASE URL                        ACTIVE\n' +
        'production  https://api.example.org/v1      yes\n' +
        'staging     https://staging.example.org/v1  -\n',
    );
  });

  test('table off a TTY is TSV', () => {
    expect(renderRecords(columns, rows, 'table', { tty: false, level: 0 })).toBe(
      'production\thttps://api.example.org/v1\tyes\nstaging\thttps://staging.example.org/v1\t-\n',
    );
  });

  describe('outside text: escaped on a terminal, exact bytes when piped', () => {
    const hostile = `Rex\u001b]0;PWNED\u0007\u001b]52;c;eA==\u0007\u001b[2J\rEVIL\u202e`;
    const pets: ProfileRow[] = [{ name: hostile, baseUrl: 'a\tb\nc', active: true }];

    test('table on a TTY shows visible escapes', () => {
      const out = renderRecords(columns, pets, 'table', { tty: true, level: 0 });
      expect(out).toContain('Rex\\x1b]0;PWNED\\x07\\x1b]52;c;eA==\\x07\\x1b[2J\\rEVIL\\u202e');
      expect(out).toContain('a\\tb\\nc');
      expect(out).not.toMatch(/[\u001b\u0007\r\u202e]/);
    });

    test('TSV off a TTY keeps the bytes, except tabs and line breaks, which become spaces', () => {
      expect(renderRecords(columns, pets, 'table', { tty: false, level: 0 })).toBe(`${hostile.replace('\r', ' ')}\ta b c\tyes\n`);
    });

    test('csv off a TTY keeps the exact bytes, quoted as RFC 4180 says', () => {
      expect(renderRecords(columns, pets, 'csv', { tty: false, level: 0 })).toBe(`name,baseUrl,active\n"${hostile}","a\tb\nc",yes\n`);
    });

    test('csv on a TTY shows visible escapes, keeping the tabs and newlines csv quotes', () => {
      const out = renderRecords(columns, pets, 'csv', { tty: true, level: 0 });
      expect(out).toBe('name,baseUrl,active\nRex\\x1b]0;PWNED\\x07\\x1b]52;c;eA==\\x07\\x1b[2J\\rEVIL\\u202e,"a\tb\nc",yes\n');
    });
  });

  test('json prints the row objects with their own types', () => {
    expect(renderRecords(columns, rows, 'json', { tty: true, level: 2 })).toBe(
      '[\n' +
        '  {\n    "name": "production",\n    "baseUrl": "https://api.example.org/v1",\n    "active": true\n  },\n' +
        '  {\n    "name": "staging",\n    "baseUrl": "https://staging.example.org/v1",\n    "active": false\n  }\n' +
        ']\n',
    );
  });

  test('ndjson prints one row object per line', () => {
    expect(renderRecords(columns, rows, 'ndjson', { tty: false, level: 0 })).toBe(
      '{"name":"production","baseUrl":"https://api.example.org/v1","active":true}\n' +
        '{"name":"staging","baseUrl":"https://staging.example.org/v1","active":false}\n',
    );
  });

  test('csv uses the column keys as its header', () => {
    expect(renderRecords(columns, rows, 'csv', { tty: true, level: 1 })).toBe(
      'name,baseUrl,active\nproduction,https://api.example.org/v1,yes\nstaging,https://staging.example.org/v1,\n',
    );
  });

  test.each([
    ['table', true, ''],
    ['table', false, ''],
    ['ndjson', false, ''],
    ['json', false, '[]\n'],
    ['csv', false, 'name,baseUrl,active\n'],
  ] as const)('no rows, %s (tty %s)', (format, tty, expected) => {
    expect(renderRecords(columns, [], format, { tty, level: 1 })).toBe(expected);
  });
});

describe('renderRecord', () => {
  test('json prints the object, not an array', () => {
    expect(renderRecord(columns, rows[0]!, 'json', { tty: false, level: 0 })).toBe(
      '{\n  "name": "production",\n  "baseUrl": "https://api.example.org/v1",\n  "active": true\n}\n',
    );
  });

  test('other formats print it as a one-row list', () => {
    expect(renderRecord(columns, rows[1]!, 'csv', { tty: false, level: 0 })).toBe(
      'name,baseUrl,active\nstaging,https://staging.example.org/v1,\n',
    );
    expect(renderRecord(columns, rows[1]!, 'ndjson', { tty: false, level: 0 })).toBe(
      '{"name":"staging","baseUrl":"https://staging.example.org/v1","active":false}\n',
    );
  });
});

describe('output formats', () => {
  test('the four formats, in the documented order', () => {
    expect(OUTPUT_FORMATS).toEqual(['table', 'json', 'ndjson', 'csv']);
  });
});
