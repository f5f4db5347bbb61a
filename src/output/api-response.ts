import { STATUS_CODES } from 'node:http';
import { parseJson } from '../schemas/json';
import type { OutputFormat } from '../globals';
import { safeLine, safeLines } from '../sanitize';
import { jsonLines, jsonText } from './formats';

type RawAnswer = { status: number; text: string; headers: Record<string, string | string[] | undefined> };

/** `-i`: the status line and the headers, then a blank line, as curl -i shows them; made safe on a terminal. */
export function renderHead(answer: RawAnswer, stdoutIsTTY = false): string {
  const lines = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`.trimEnd()];
  for (const [name, value] of Object.entries(answer.headers)) {
    const canonical = name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) lines.push(`${canonical}: ${one}`);
  }
  return `${lines.map((line) => (stdoutIsTTY ? safeLine(line) : line)).join('\n')}\n\n`;
}

export function answerJson(text: string): { value: unknown } | undefined {
  try {
    return { value: parseJson(text) };
  } catch {
    return undefined;
  }
}

/** The body as sent (ending in a newline, for `$(…)` and `wc -l`), JSON pretty on a terminal or with -o json, a line an item with -o ndjson. */
export function renderBody(text: string, format: OutputFormat, stdoutIsTTY: boolean): string {
  const asSent = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  // A body of many MiB is escaped only when it is shown as text.
  const shown = () => (stdoutIsTTY ? safeLines(asSent) : asSent);
  if (format === 'csv' || (format === 'table' && !stdoutIsTTY)) return shown();
  const json = answerJson(text);
  if (json === undefined) return shown();
  return format === 'ndjson' ? jsonLines(json.value, stdoutIsTTY) : jsonText(json.value, stdoutIsTTY);
}
