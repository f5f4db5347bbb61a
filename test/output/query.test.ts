import { describe, expect, it } from 'vitest';
import { compileQuery, renderQueryResult } from '../../src/output/query';
import { parseJson } from '../../src/schemas/json';
import { PetctlError, UsageError } from '../../src/errors';
import { thrown } from '../helpers/thrown';

const BIG = 9007199254740993n;
const pets = parseJson(
  '[{"id":9007199254740993,"name":"Big","categoryId":9007199254740995,"status":"sold"},{"id":2,"name":"Bella","categoryId":1,"status":"available"},{"id":9007199254740995,"name":"Bigger","categoryId":1}]',
);

function query(expression: string, value: unknown = pets): unknown {
  return compileQuery(expression).apply(value);
}

describe('--query (JMESPath)', () => {
  // 9007199254740992 is what a double makes of ...993: it must not match.
  it.each<[string, unknown]>([
    ['[].id', [BIG, 2, 9007199254740995n]],
    ['[?id == `9007199254740993`].name', ['Big']],
    ['[?id == `9007199254740992`].name', []],
    ['[?id > `9007199254740993`].name', ['Bigger']],
    ['[?id == categoryId].name', []],
    ['sort_by(@, &id)[].name', ['Bella', 'Big', 'Bigger']],
    ['max_by(@, &id).name', 'Bigger'],
    ['sort([].id)', [2, BIG, 9007199254740995n]],
    ['to_string([0].id)', '9007199254740993'],
    // A string inside went from lossless-json back to the stand-in JSON.stringify: "Maximum call stack size exceeded".
    ['to_string([0])', '{"id":9007199254740993,"name":"Big","categoryId":9007199254740995,"status":"sold"}'],
    ['to_string([0].name)', 'Big'],
    ['[].to_string(@) | [1]', '{"id":2,"name":"Bella","categoryId":1,"status":"available"}'],
    ['contains([].id, `9007199254740993`)', true],
    ['type([0].id)', 'number'],
  ])('int64 ids exact, compared, sorted and picked: %s', (expression, expected) => {
    expect(query(expression)).toEqual(expected);
  });

  it('a malformed expression is a usage error (exit 2), as is a function on the wrong type: no stack trace', () => {
    for (const bad of ['[', '[?id ==', 'a.[', ']', '`{bad json`', 'nope(@)', '[?false].{a: nope(@)}', '']) {
      expect(thrown(() => compileQuery(bad), PetctlError)).toMatchObject({ exitCode: 2, code: 'invalid_query' });
    }
    expect(() => query('abs([0].name)')).toThrow(/--query could not be applied/);
    expect(() => query('sum([].id)')).toThrow(PetctlError);
  });

  it('renders json, ndjson and plain lines, int64 ids digit for digit', () => {
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
    // int64 ids digit for digit, literal big integers exact, and JSON.parse as it was.
    expect(renderQueryResult(query('[0].id'), 'json')).toBe('9007199254740993\n');
    expect(query('`[9007199254740993]`', null)).toEqual([BIG]);
    expect(JSON.parse('9007199254740993')).toBe(9007199254740992);
  });
});

const hostile = 'Rex\u001b]0;PWNED\u0007\u202e';
it.each([
  ['on a terminal, plain lines and JSON lines show escapes', [hostile, { name: hostile }], 'table', true, 'Rex\\x1b]0;PWNED\\x07\\u202e\n{"name":"Rex\\u001b]0;PWNED\\u0007\\u202e"}\n'],
  ['piped, a plain line is the value as sent', hostile, 'table', false, `${hostile}\n`],
  ['on a terminal, json shows C1 and bidi controls as \\u escapes', [{ name: 'Rex\u009b2J\u202e' }], 'json', true, '[\n  {\n    "name": "Rex\\u009b2J\\u202e"\n  }\n]\n'],
] as const)('--query lines and outside text: %s', (_title, value, format, tty, expected) => {
  expect(renderQueryResult(value, format, tty)).toBe(expected);
});

const rows = parseJson(
  '[{"id":9007199254740993,"name":"Rex, \\"the\\" dog","categoryId":1,"status":"sold"},{"id":2,"name":"Bella","categoryId":1,"tags":["a","b"]},{"id":3,"name":"Tom","categoryId":2,"status":null}]',
);

/** `petctl … --query <expression> -o csv` over `value`, piped (or on a terminal). */
function csv(expression: string, value: unknown = rows, tty = false): string {
  const query = compileQuery(expression);
  return renderQueryResult(query.apply(value), 'csv', tty, query);
}

const refusal = (expression: string, value: unknown = rows) => thrown(() => csv(expression, value), UsageError);

describe('--query with -o csv', () => {
  it('an array of objects: the union of their keys in first-seen order, a missing key empty, nested values as JSON', () => {
    expect(csv('@')).toBe(
      'id,name,categoryId,status,tags\n' +
        '9007199254740993,"Rex, ""the"" dog",1,sold,\n' +
        '2,Bella,1,,"[""a"",""b""]"\n' +
        '3,Tom,2,,\n',
    );
  });

  it.each([
    // An array of objects picked by the expression keeps its keys in the expression order.
    ['[].{name: name, id: id}', 'name,id\n"Rex, ""the"" dog",9007199254740993\nBella,2\nTom,3\n'],
    // An array of scalars: one column named by the last field the expression picks.
    ['[].id', 'id\n9007199254740993\n2\n3\n'],
    ['sort_by(@, &id)[].id', 'id\n2\n3\n9007199254740993\n'],
    ['[].tags[]', 'tags\na\nb\n'],
    // Scalars the expression does not name: one column named value; booleans as words, null empty.
    ['[length(@)]', 'value\n3\n'],
    ['map(&status, @)', 'value\nsold\n\n\n'],
    ['[`true`, `null`, `1.5`, `"x"`]', 'value\ntrue\n\n1.5\nx\n'],
    // An empty array: the header alone when the expression names its columns, else nothing.
    ["[?status == 'adopted'].{id: id, name: name}", 'id,name\n'],
    ["[?status == 'adopted'].id", 'id\n'],
    ["[?status == 'adopted']", ''],
  ])('%s', (expression, expected) => {
    expect(csv(expression)).toBe(expected);
  });

  it('on a terminal, control characters in keys and values show as escapes; piped, they pass as sent', () => {
    const hostile = parseJson('[{"na\\u001bme":"Rex\\u001b]0;owned\\u0007"}]');
    expect(csv('@', hostile, true)).toBe('na\\x1bme\nRex\\x1b]0;owned\\x07\n');
    expect(csv('@', hostile, false)).toBe('na\u001bme\nRex\u001b]0;owned\u0007\n');
  });

  it("text cells a spreadsheet would take for formulas get a leading ', keys too; numbers, int64 and exact decimals, stay numbers", () => {
    const value = parseJson('[{"id":-2,"=k":"-2+3","n":-9007199254740993,"d":-0.10000000000000000000001,"tags":["=x"]},{"id":3,"=k":"@SUM(1+1)"}]');
    const expected = `id,'=k,n,d,tags\n-2,'-2+3,-9007199254740993,-0.10000000000000000000001,"[""=x""]"\n3,'@SUM(1+1),,,\n`;
    expect(csv('@', value, false)).toBe(expected);
    expect(csv('@', value, true)).toBe(expected);
    expect(csv('[].id', value)).toBe('id\n-2\n3\n');
    expect(csv('[].d', value)).toBe('d\n-0.10000000000000000000001\n');
    expect(csv("[].\"=k\"", value)).toBe("'=k\n'-2+3\n'@SUM(1+1)\n");
  });

  it.each([
    ['length(@)', 'a number', "'[length(@)]'"],
    ['[0]', 'an object', "'[[0]]'"],
    ['[0].name', 'a string', "'[[0].name]'"],
    ['contains([].id, `2`)', 'a boolean', "'[contains([].id, `2`)]'"],
    ['nothing', 'null', "'[nothing]'"],
    ['`0.10000000000000000000001`', 'a number', "'[`0.10000000000000000000001`]'"],
    // jmespath.js's max_by finds no string above -Infinity and gives undefined: a null, not "a number".
    ['max_by(@, &name)', 'null', "'[max_by(@, &name)]'"],
  ])('%s gives %s: a usage error naming the outputs that print it, and the brackets that make it a record', (expression, shape, bracketed) => {
    const error = refusal(expression);
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(`--query gives ${shape}; -o csv prints only an array of objects or an array of scalars`);
    expect(error.hint).toBe(`-o json, -o ndjson and the default output print it; for csv, put the expression in brackets for one record: --query ${bracketed}`);
  });

  it.each([
    ['[].[id, name]', 'an array of arrays'],
    ['[[0], [0].id]', 'an array mixing objects and scalars'],
  ])('%s gives %s: refused, with the shape that fits', (expression, shape) => {
    const error = refusal(expression);
    expect(error.message).toMatch(new RegExp(`^--query gives ${shape.replace(/[[\]]/g, '\\$&')};`));
    expect(error.hint).toMatch(/make each element an object, e\.g\. --query '\[\]\.\{id: id, name: name\}'$/);
  });

  it("quotes an expression holding ' for the shell in the hint", () => {
    expect(refusal("[0].name == 'Bella'").hint).toMatch(/--query '\[\[0\]\.name == '\\''Bella'\\''\]'$/);
  });
});
