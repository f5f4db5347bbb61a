import { INT64_MAX, INT64_MIN } from './constants';

/** An int64 from decimal text (a flag, a path segment), or undefined: a number while safe, else a bigint. */
export function parseInt64(text: string): number | bigint | undefined {
  if (!/^-?(0|[1-9][0-9]*)$/.test(text)) return undefined;
  const big = BigInt(text);
  if (big < INT64_MIN || big > INT64_MAX) return undefined;
  return Number.isSafeInteger(Number(text)) ? Number(text) : big;
}

/** The int64 range, as every message that names it writes it. */
const INT64_RANGE = `from ${INT64_MIN} to ${INT64_MAX}`;

/** What an int64 must be, for text that is not one: the range only for a whole number outside it. */
export function int64Problem(text: string): string {
  if (!/^-?\d+$/.test(text)) return 'must be a whole number';
  const big = BigInt(text);
  if (big < INT64_MIN || big > INT64_MAX) return `must be a whole number ${INT64_RANGE}`;
  return 'must be a whole number written without leading zeros';
}
