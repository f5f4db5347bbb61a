import { describe, expect, it } from 'vitest';
import { compileQuery, renderQueryResult } from '../../src/output/query';
import { parseJson } from '../../src/schemas/json';
import { PetctlError } from '../../src/errors';
import { thrown } from '../helpers/thrown';

const BIG = 9007199254740993n;
const pets = parseJson(
  '[{"id":9007199254740993,"name":"Big","categoryId":9007199254740995,"status":"sold"},{"id":2,"name":"Bella","categoryId":1,"status":"available"},{"id":9007199254740995,"name":"Bigger","categoryId":1}]',
);

function query(expression: string, value: unknown = pets): unknown {
  return compileQuery(expression).apply(value);
}

describe('--query (JMESPath)', () => {
  it('passes int64 ids through digit for digit', () => {
    expect(query('[].id')).toEqual([BIG, 2, 9007199254740995n]);
    expect(renderQueryResult(query('[0].id'), 'json')).toBe('9007199254740993\n');
    expect(renderQueryResult(query('[0]'), 'json')).toContain('"id": 9007199254740993,');
  });

  it('compares big ids exactly, against literals and each other', () => {
    expect(query('[?id == `9007199254740993`].name')).toEqual(['Big']);
    // 9007199254740992 is what a double makes of ...993: it must not match.
    expect(query('[?id == `9007199254740992`].name')).toEqual([]);
    expect(query('[?id > `9007199254740993`].name')).toEqual(['Bigger']);
    expect(query('[?id < `9007199254740995`].name')).toEqual(['Big', 'Bella']);
    expect(query('[?id == categoryId].name')).toEqual([]);
    expect(query('[?categoryId == `9007199254740995`].id')).toEqual([BIG]);
  });

  it('sorts and picks extremes by big ids exactly', () => {
    expect(query('sort_by(@, &id)[].name')).toEqual(['Bella', 'Big', 'Bigger']);
    expect(query('max_by(@, &id).name')).toBe('Bigger');
    expect(query('min_by(@, &id).id')).toBe(2);
    expect(query('sort([].id)')).toEqual([2, BIG, 9007199254740995n]);
    expect(query('to_string([0].id)')).toBe('9007199254740993');
    expect(query('contains([].id, `9007199254740993`)')).toBe(true);
    expect(query('type([0].id)')).toBe('number');
  });

  it('keeps literal big integers exact in the result and restores JSON.parse', () => {
    expect(query('`[9007199254740993]`', null)).toEqual([BIG]);
    expect(JSON.parse('9007199254740993')).toBe(9007199254740992);
  });

  it('a malformed expression is a usage error (exit 2)', () => {
    for (const bad of ['[', '[?id ==', 'a.[', ']', '`{bad json`', 'nope(@)', '']) {
      expect(thrown(() => compileQuery(bad), PetctlError)).toMatchObject({ exitCode: 2, code: 'invalid_query' });
    }
  });

  it('a function applied to the wrong type is a clear exit 2, not a stack trace', () => {
    expect(() => query('abs([0].name)')).toThrow(/--query could not be applied/);
    expect(() => query('sum([].id)')).toThrow(PetctlError);
  });

  it('renders json, ndjson and plain lines', () => {
    const names = query('[].name');
    expect(renderQueryResult(names, 'json')).toBe('[\n  "Big",\n  "Bella",\n  "Bigger"\n]\n');
    expect(renderQueryResult(names, 'ndjson')).toBe('"Big"\n"Bella"\n"Bigger"\n');
    expect(renderQueryResult(names, 'table')).toBe('Big\nBella\nBigger\n');
    expect(renderQueryResult(query('[].id'), 'table')).toBe('9007199254740993\n2\n9007199254740995\n');
    expect(renderQueryResult(query('[0].name'), 'table')).toBe('Big\n');
    expect(renderQueryResult(query('[].{id: id, n: name}'), 'ndjson')).toBe(
      '{"id":9007199254740993,"n":"Big"}\n{"id":2,"n":"Bella"}\n{"id":9007199254740995,"n":"Bigger"}\n',
    );
    // Objects stay JSON in table format; a missing value is null.
    expect(renderQueryResult(query('[1]'), 'table')).toBe('{\n  "id": 2,\n  "name": "Bella",\n  "categoryId": 1,\n  "status": "available"\n}\n');
    expect(renderQueryResult(query('[0].nothing'), 'json')).toBe('null\n');
    expect(renderQueryResult(query('[].status'), 'table')).toBe('sold\navailable\n');
  });
});

describe('--query lines and outside text', () => {
  const hostile = 'Rex\u001b]0;PWNED\u0007\u202e';
  it.each([
    ['on a terminal, plain lines and JSON lines show escapes', [hostile, { name: hostile }], 'table', true, 'Rex\\x1b]0;PWNED\\x07\\u202e\n{"name":"Rex\\u001b]0;PWNED\\u0007\\u202e"}\n'],
    ['piped, a plain line is the value as sent', hostile, 'table', false, `${hostile}\n`],
    // The same value: output/json.ts's rule (pets.test.ts "json and ndjson on a terminal").
    ['on a terminal, json shows C1 and bidi controls as \\u escapes', [{ name: 'Rex\u009b2J\u202e' }], 'json', true, '[\n  {\n    "name": "Rex\\u009b2J\\u202e"\n  }\n]\n'],
    ['on a terminal, ndjson prints the array\'s one element on one line, its controls as \\u escapes', [{ name: 'Rex\u009b2J\u202e' }], 'ndjson', true, '{"name":"Rex\\u009b2J\\u202e"}\n'],
  ] as const)('%s', (_title, value, format, tty, expected) => {
    expect(renderQueryResult(value, format, tty)).toBe(expected);
  });
});
