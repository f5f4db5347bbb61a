import jmespath from 'jmespath';
import { PetctlError, UsageError } from '../errors';
import { parseJson, stringifyJson } from '../schemas/json';
import type { OutputFormat } from './format';
import { type AstNode, renderQueryCsv } from './query-csv';
import { safeText, stdoutJson } from '../sanitize';

/**
 * `--query <JMESPath>` (as in aws): filters a command's JSON result before it
 * is rendered. Loaded only when --query is given.
 *
 * jmespath.js knows numbers only as doubles, so an int64 id above 2^53 would be
 * rounded by any arithmetic or comparison it does, and a literal such as
 * `9007199254740993` in the expression would be read as 9007199254740992.
 * Big integers therefore enter the query as `ExactInteger` objects, which
 * jmespath takes for numbers (it tells types apart with
 * Object.prototype.toString, which reads Symbol.toStringTag) and whose
 * valueOf() is the bigint, so `<`, `>`, sort_by, max_by and min_by compare
 * them exactly. One object per value makes `==` (identity first) exact too.
 * They leave the query as bigints again, printed digit for digit.
 */

class ExactInteger {
  constructor(readonly value: bigint) {}
  valueOf(): bigint {
    return this.value;
  }
  get [Symbol.toStringTag](): string {
    return 'Number';
  }
}

export interface CompiledQuery {
  expression: string;
  /** jmespath.js's parsed tree (the names a result's fields get, for csv). */
  ast: unknown;
  /** The expression applied to a command's JSON result; bigints in, bigints out. */
  apply(value: unknown): unknown;
}

/** A bad --query, or one that cannot be applied to this result: exit 2, like any bad flag value. */
function queryError(message: string): PetctlError {
  return new UsageError(message, { code: 'invalid_query', hint: 'see https://jmespath.org/specification.html' });
}

/** The JMESPath specification's functions, all that jmespath.js knows. */
const FUNCTIONS = new Set(
  'abs avg ceil contains ends_with floor join keys length map max max_by merge min min_by not_null reverse sort sort_by starts_with sum to_array to_number to_string type values'.split(' '),
);

/** jmespath.js reports an unknown function only when it is called; this finds one in the parsed tree. */
function unknownFunction(node: unknown): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const { type, name, children } = node as AstNode;
  if (type === 'Function' && name !== undefined && !FUNCTIONS.has(name)) return name;
  for (const child of children ?? []) {
    const found = unknownFunction(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Checks the expression's syntax and function names; throws a usage error (exit 2) before anything is sent. */
export function compileQuery(expression: string): CompiledQuery {
  let ast: unknown;
  try {
    ast = jmespath.compile(expression);
  } catch (error) {
    throw queryError(`--query is not a valid JMESPath expression: ${(error as Error).message}`);
  }
  const unknown = unknownFunction(ast);
  if (unknown !== undefined) throw queryError(`--query calls an unknown function: ${unknown}()`);
  return { expression, ast, apply: (value) => applyQuery(expression, value) };
}

function applyQuery(expression: string, value: unknown): unknown {
  const exact = new Map<bigint, ExactInteger>();
  const wrap = (big: bigint) => {
    let wrapped = exact.get(big);
    if (!wrapped) exact.set(big, (wrapped = new ExactInteger(big)));
    return wrapped;
  };
  const { parse: realParse, stringify: realStringify } = JSON;
  // jmespath parses `literals` with JSON.parse and to_string() uses JSON.stringify;
  // for the length of the (synchronous) search, both keep big integers exact.
  JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    const parsed: unknown = reviver ? realParse(text, reviver) : parseJson(text);
    return toQueryValue(parsed, wrap);
  }) as typeof JSON.parse;
  JSON.stringify = ((value: unknown, ...rest: unknown[]) =>
    rest.length > 0 ? realStringify(value, ...(rest as [])) : stringifyJson(fromQueryValue(value))) as typeof JSON.stringify;
  try {
    return fromQueryValue(jmespath.search(toQueryValue(value, wrap), expression));
  } catch (error) {
    if (error instanceof PetctlError) throw error;
    // jmespath.js puts "TypeError: " inside its messages; the name of a JS error class means nothing here.
    throw queryError(`--query could not be applied: ${(error as Error).message.replace(/^\w*Error: /, '')}`);
  } finally {
    JSON.parse = realParse;
    JSON.stringify = realStringify;
  }
}

function toQueryValue(value: unknown, wrap: (big: bigint) => ExactInteger): unknown {
  if (typeof value === 'bigint') return wrap(value);
  if (Array.isArray(value)) return value.map((item) => toQueryValue(item, wrap));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toQueryValue(item, wrap)]));
  return value;
}

function fromQueryValue(value: unknown): unknown {
  if (value instanceof ExactInteger) return value.value;
  if (Array.isArray(value)) return value.map(fromQueryValue);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fromQueryValue(item)]));
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function isScalarLine(value: unknown): value is string | number | bigint {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint';
}

/**
 * The query's result on stdout:
 * - json: pretty JSON (also the default for anything but strings and numbers);
 * - ndjson: an array as one compact element per line, anything else as one line;
 * - table: strings and numbers as plain lines (an array of them one per line),
 *   so `--query '[].name'` feeds `while read`; objects still print as JSON;
 * - csv: an array of objects or of scalars as a table (query-csv.ts), else a usage error.
 * On a terminal, JSON shows C1 and bidi controls as `\u` escapes (stdoutJson); plain lines every control.
 */
export function renderQueryResult(value: unknown, format: OutputFormat, tty = false, query?: Pick<CompiledQuery, 'expression' | 'ast'>): string {
  if (format === 'csv') return renderQueryCsv(value, query ?? { expression: '@', ast: undefined }, tty);
  if (format === 'ndjson') {
    const items = Array.isArray(value) ? value : [value];
    return items.map((item) => `${stdoutJson(stringifyJson(item ?? null), tty)}\n`).join('');
  }
  if (format === 'table') {
    // Plain lines on a terminal are read by a person: controls show as escapes (sanitize.ts).
    const line = (item: unknown) => (isScalarLine(item) ? (tty ? safeText(String(item)) : String(item)) : stdoutJson(stringifyJson(item ?? null), tty));
    if (isScalarLine(value)) return `${line(value)}\n`;
    if (Array.isArray(value)) return value.map((item) => `${line(item)}\n`).join('');
  }
  return `${stdoutJson(stringifyJson(value ?? null, 2), tty)}\n`;
}

/** Writes a command's JSON result through --query. */
export function writeQueried(stdout: { write(chunk: string): unknown }, tty: boolean, query: string, value: unknown, format: OutputFormat): void {
  const compiled = compileQuery(query);
  stdout.write(renderQueryResult(compiled.apply(value), format, tty, compiled));
}
