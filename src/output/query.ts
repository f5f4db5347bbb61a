import jmespath from 'jmespath';
import { isLosslessNumber } from 'lossless-json';
import { PetctlError, UsageError } from '../errors';
import { parseJson, stringifyJson } from '../schemas/json';
import type { OutputFormat } from '../globals';
import { safeText, stdoutJson } from '../sanitize';
import { type CsvValue, jsonLines, jsonText, renderCsv, shellWord } from './formats';

/** `--query <JMESPath>` (as in aws), loaded only when it is given. jmespath.js knows numbers only as doubles, which
 * would round an int64 id, so big integers enter the query as `ExactInteger`s: jmespath takes them for numbers (by
 * Symbol.toStringTag), valueOf() makes `<`, sort_by, max_by… exact, and one object per value makes `==` exact too. */

class ExactInteger {
  constructor(readonly value: bigint) {}
  valueOf(): bigint {
    return this.value;
  }
  get [Symbol.toStringTag](): string {
    return 'Number';
  }
}

interface AstNode {
  type?: string;
  name?: string;
  children?: AstNode[];
  value?: AstNode;
}

/** Exit 2, like any bad flag value. */
function queryError(message: string): PetctlError {
  return new UsageError(message, { code: 'invalid_query', hint: 'see https://jmespath.org/specification.html' });
}

/** All that jmespath.js knows. */
const FUNCTIONS = new Set(
  'abs avg ceil contains ends_with floor join keys length map max max_by merge min min_by not_null reverse sort sort_by starts_with sum to_array to_number to_string type values'.split(' '),
);

/** jmespath.js reports an unknown function only when it is called; this finds one in the parsed tree. */
function unknownFunction(node: AstNode | null | undefined): string | undefined {
  if (node?.type === 'Function' && node.name !== undefined && !FUNCTIONS.has(node.name)) return node.name;
  // A slice's children are numbers and nulls: no node, no children. A `{key: value}` entry holds its value apart.
  const inner = node?.type === 'KeyValuePair' ? [node.value] : node?.children;
  return inner?.map(unknownFunction).find((name) => name !== undefined);
}

export function compileQuery(expression: string) {
  let ast: unknown;
  try {
    ast = jmespath.compile(expression);
  } catch (error) {
    throw queryError(`--query is not a valid JMESPath expression: ${(error as Error).message}`);
  }
  const unknown = unknownFunction(ast as AstNode);
  if (unknown !== undefined) throw queryError(`--query calls an unknown function: ${unknown}()`);
  // The parsed tree names a result's fields for csv; apply takes bigints in and gives bigints out.
  return { expression, ast, apply: (value: unknown) => applyQuery(expression, value) };
}

function applyQuery(expression: string, value: unknown): unknown {
  const exact = new Map<bigint, ExactInteger>();
  const wrap = (leaf: unknown) => {
    if (typeof leaf !== 'bigint') return leaf;
    if (!exact.has(leaf)) exact.set(leaf, new ExactInteger(leaf));
    return exact.get(leaf);
  };
  const { parse: realParse, stringify: realStringify } = JSON;
  // jmespath parses `literals` with JSON.parse and to_string() uses JSON.stringify: during the search both are exact.
  // Each is called with one argument only (jmespath.js, lossless-json).
  JSON.parse = ((text: string) => mapLeaves(parseJson(text), wrap)) as typeof JSON.parse;
  // lossless-json writes each string, boolean and null with JSON.stringify itself: those go to the real one.
  JSON.stringify = ((value: unknown) =>
    typeof value !== 'object' || value === null ? realStringify(value) : stringifyJson(mapLeaves(value, unwrap))
  ) as typeof JSON.stringify;
  try {
    // max_by and min_by over strings give undefined: JMESPath has no such value, and it means null.
    return mapLeaves(jmespath.search(mapLeaves(value, wrap), expression), unwrap) ?? null;
  } catch (error) {
    // jmespath.js puts "TypeError: " inside its messages; the name of a JS error class means nothing here.
    throw queryError(`--query could not be applied: ${(error as Error).message.replace(/^\w*Error: /, '')}`);
  } finally {
    JSON.parse = realParse;
    JSON.stringify = realStringify;
  }
}

const unwrap = (leaf: unknown) => (leaf instanceof ExactInteger ? leaf.value : leaf);

function mapLeaves(value: unknown, map: (leaf: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => mapLeaves(item, map));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapLeaves(item, map)]));
  return map(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A string or a number: a plain line in table format, a csv field as it is. */
const isScalarLine = (value: unknown): value is string | number | bigint =>
  ['string', 'number', 'bigint'].includes(typeof value);

/** JSON (ndjson: a line an item); in table format strings and numbers as plain lines, so `--query '[].name'` feeds
 * `while read`. */
export function renderQueryResult(value: unknown, format: OutputFormat, tty = false, query?: { expression: string; ast: unknown }): string {
  if (format === 'csv') return renderQueryCsv(value, query ?? { expression: '@', ast: undefined }, tty);
  if (format === 'ndjson') return jsonLines(value, tty);
  if (format === 'table') {
    const line = (item: unknown) => (isScalarLine(item) ? (tty ? safeText(String(item)) : String(item)) : stdoutJson(stringifyJson(item ?? null), tty));
    if (isScalarLine(value)) return `${line(value)}\n`;
    if (Array.isArray(value)) return value.map((item) => `${line(item)}\n`).join('');
  }
  return jsonText(value, tty);
}

/** `--query … -o csv` (docs/api-and-query.md): an array of objects under the union of their keys, or of scalars in one
 * column named by the expression; an empty one the header alone when the expression names its columns. Else a usage
 * error. */
function renderQueryCsv(value: unknown, query: { expression: string; ast: unknown }, tty: boolean): string {
  if (!Array.isArray(value)) throw notATable(value, query.expression);
  const named = namedColumns(query.ast as AstNode);
  if (value.length === 0) return named === undefined ? '' : renderCsv(named.map((header) => ({ header, value: () => undefined })), [], { tty });
  if (value.every(isScalar)) return renderCsv([{ header: named?.[0] ?? 'value', value: cell }], value, { tty });
  if (!value.every(isObject)) throw notATable(value, query.expression);
  const keys = [...new Set(value.flatMap((row) => Object.keys(row)))];
  return renderCsv(keys.map((key) => ({ header: key, value: (row: Record<string, unknown>) => cell(row[key]) })), value, { tty });
}

// A decimal a double cannot hold exactly stays a LosslessNumber object: a number all the same.
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
const isScalar = (value: unknown) =>
  value === null || typeof value === 'boolean' || isScalarLine(value) || isLosslessNumber(value);

function cell(value: unknown): CsvValue {
  if (value === undefined || value === null) return undefined;
  return isScalarLine(value) || isLosslessNumber(value) ? value : stringifyJson(value);
}

/** Their result is their first argument's elements, reordered: the names stay. */
const REORDERING = new Set(['sort', 'sort_by', 'reverse']);

/** The names an expression gives its result's fields, when it ends by naming them. */
function namedColumns(node: AstNode | undefined): string[] | undefined {
  const [left, right] = node?.children ?? [];
  switch (node?.type) {
    case 'Field':
      return node.name === undefined ? undefined : [node.name];
    case 'MultiSelectHash':
      return node.children?.map((pair) => pair.name ?? '');
    case 'Projection':
    case 'FilterProjection':
    case 'ValueProjection':
    case 'Subexpression':
    case 'Pipe':
    case 'Flatten':
      // The last step names the fields; a flattening has one side, `[].tags[]` ends in its identity: the left's.
      return namedColumns(right === undefined || right.type === 'Identity' ? left : right);
    case 'Function':
      return node.name !== undefined && REORDERING.has(node.name) ? namedColumns(left) : undefined;
    default:
      return undefined;
  }
}

function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return value.some(Array.isArray) ? 'an array of arrays' : 'an array mixing objects and scalars';
  if (value === null) return 'null';
  if (isObject(value)) return 'an object';
  return typeof value === 'string' ? 'a string' : typeof value === 'boolean' ? 'a boolean' : 'a number';
}

function notATable(value: unknown, expression: string): UsageError {
  const how = Array.isArray(value)
    ? `make each element an object, e.g. --query ${shellWord('[].{id: id, name: name}')}`
    : `put the expression in brackets for one record: --query ${shellWord(`[${expression}]`)}`;
  return new UsageError(`--query gives ${shapeOf(value)}; -o csv prints only an array of objects or an array of scalars`, `-o json, -o ndjson and the default output print it; for csv, ${how}`);
}
