import { isLosslessNumber } from 'lossless-json';
import { UsageError } from '../errors';
import { stringifyJson } from '../schemas/json';
import { type CsvValue, renderCsv } from './csv';
import { shellWord } from './listing-stop';

/**
 * `--query … -o csv` (docs/api-and-query.md): an array of objects under the union of their keys, or of scalars in one
 * column named by the expression; an empty one the header alone when the expression names its columns. Else a usage error.
 */
export function renderQueryCsv(value: unknown, query: { expression: string; ast: unknown }, tty: boolean): string {
  if (!Array.isArray(value)) throw notATable(value, query.expression);
  const named = namedColumns(query.ast as AstNode);
  if (value.length === 0) return named === undefined ? '' : renderCsv(named.map((header) => ({ header, value: () => undefined })), [], { tty });
  if (value.every(isScalar)) return renderCsv([{ header: named?.[0] ?? 'value', value: cell }], value, { tty });
  if (!value.every(isObject)) throw notATable(value, query.expression);
  const keys = [...new Set(value.flatMap((row) => Object.keys(row)))];
  return renderCsv(keys.map((key) => ({ header: key, value: (row: Record<string, unknown>) => cell(row[key]) })), value, { tty });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isScalar = (value: unknown) => value === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof value);

function cell(value: unknown): CsvValue {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || isLosslessNumber(value)) return value;
  return stringifyJson(value);
}

/** A node of jmespath.js's parsed tree, as far as petctl reads it. */
export interface AstNode {
  type?: string;
  name?: string;
  children?: AstNode[];
}

/** Functions whose result is their first argument's elements, reordered: the names stay. */
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
      // `[].tags[]` ends in the identity of its flattening: the names are the left side's.
      return namedColumns(right?.type === 'Identity' ? left : right);
    case 'Subexpression':
    case 'Pipe':
      return namedColumns(right);
    case 'Flatten':
      return namedColumns(left);
    case 'Function':
      return node.name !== undefined && REORDERING.has(node.name) ? namedColumns(left) : undefined;
    default:
      return undefined;
  }
}

/** What a result that is no table is, in words. */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return value.some(Array.isArray) ? 'an array of arrays' : 'an array mixing objects and scalars';
  if (value === null) return 'null';
  if (isObject(value)) return 'an object';
  return typeof value === 'string' ? 'a string' : typeof value === 'boolean' ? 'a boolean' : 'a number';
}

/** The usage error for a result that is no table: what it is, which outputs print it, and how to make it one. */
function notATable(value: unknown, expression: string): UsageError {
  const how = Array.isArray(value)
    ? `make each element an object, e.g. --query ${shellWord('[].{id: id, name: name}')}`
    : `put the expression in brackets for one record: --query ${shellWord(`[${expression}]`)}`;
  return new UsageError(`--query gives ${shapeOf(value)}; -o csv prints only an array of objects or an array of scalars`, `-o json, -o ndjson and the default output print it; for csv, ${how}`);
}
