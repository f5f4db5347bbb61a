import { stringifyJson } from '../schemas/json';
import { stdoutJson } from '../sanitize';

/** Pretty JSON, int64-exact; on a terminal C1 and bidi controls as `\u` escapes, the same value (sanitize.ts). */
export function jsonText(value: unknown, tty: boolean): string {
  return `${stdoutJson(stringifyJson(value ?? null, 2), tty)}\n`;
}

/** `-o ndjson`: an array's items one compact JSON a line, anything else one line. */
export function jsonLines(value: unknown, tty: boolean): string {
  return (Array.isArray(value) ? value : [value]).map((item) => `${stdoutJson(stringifyJson(item ?? null), tty)}\n`).join('');
}
