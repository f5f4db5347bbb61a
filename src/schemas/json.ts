import { isInteger, isSafeNumber, LosslessNumber, parse, stringify } from 'lossless-json';

// JSON.parse rounds integers above 2^53 (ids are int64), and Node 20's revivers have no `source`:
// lossless-json gives each number's text. A decimal a double cannot hold stays a LosslessNumber.
function parseNumber(text: string): number | bigint | LosslessNumber {
  if (isInteger(text)) return isSafeNumber(text) ? Number(text) : BigInt(text);
  return isSafeNumber(text) ? Number(text) : new LosslessNumber(text);
}

/** Parses JSON text keeping every number exact. Throws SyntaxError on bad JSON. */
export function parseJson(text: string): unknown {
  return parse(text, null, parseNumber);
}

/** Serialises values that may hold bigints or LosslessNumbers, digit for digit. */
export function stringifyJson(value: unknown, indent?: number): string {
  const out = stringify(value, undefined, indent);
  if (out === undefined) throw new TypeError('value cannot be serialised as JSON');
  return out;
}
