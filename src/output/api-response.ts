import { STATUS_CODES } from 'node:http';
import { parseJson, stringifyJson } from '../schemas/json';
import type { OutputFormat } from './format';
import { safeLine, safeText, stdoutJson } from '../sanitize';

/** What `petctl api` prints of an answer. */
export interface RawAnswer {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/** `-i`: the status line and the headers, then a blank line, as curl -i shows them; made safe on a terminal. */
export function renderHead(answer: RawAnswer, stdoutIsTTY = false): string {
  const lines = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`.trimEnd()];
  for (const [name, value] of Object.entries(answer.headers)) {
    const canonical = name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) lines.push(`${canonical}: ${one}`);
  }
  return `${lines.map((line) => (stdoutIsTTY ? safeLine(line) : line)).join('\n')}\n\n`;
}

/** The body as JSON (int64-exact), or undefined when it is empty or not JSON. */
export function answerJson(text: string): { value: unknown } | undefined {
  if (text.trim() === '') return undefined;
  try {
    return { value: parseJson(text) };
  } catch {
    return undefined;
  }
}

/**
 * The body as the server sent it, except that a JSON body is pretty-printed
 * (int64-exact) on a terminal or with -o json, and -o ndjson prints an
 * array's elements one per line. Piped, in the default format, the bytes are
 * passed through untouched, with a newline after them when they lack one (as
 * every line of text a command prints ends: `$(…)` and `wc -l` expect it).
 * On a terminal, control and bidi characters show as escapes (sanitize.ts); in
 * JSON as `\u` escapes, the same value.
 */
export function renderBody(text: string, format: OutputFormat, stdoutIsTTY: boolean): string {
  const forPerson = format === 'table' && stdoutIsTTY;
  const pretty = format === 'json' || forPerson;
  const asSent = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  if (!pretty && format !== 'ndjson') return asSent;
  const json = answerJson(text);
  // On a terminal the body is read, not processed: its controls are shown as escapes (the JSON value unchanged).
  if (json === undefined) return stdoutIsTTY ? safeText(asSent, { tab: true, newline: true }) : asSent;
  if (format === 'ndjson') {
    const items = Array.isArray(json.value) ? json.value : [json.value];
    return items.map((item) => `${stdoutJson(stringifyJson(item), stdoutIsTTY)}\n`).join('');
  }
  return `${stdoutJson(stringifyJson(json.value, 2), stdoutIsTTY)}\n`;
}
