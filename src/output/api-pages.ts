import { stringifyJson } from '../schemas/json';
import type { OutputFormat } from './format';
import { type ItemStream, jsonArrayStream } from './listing-stream';
import { safeText } from './sanitize';

/**
 * `petctl api --paginate` written as the pages come, so that a stop keeps what
 * was fetched: by default and with -o json one JSON array of every page's items
 * (pretty, int64-exact), closed on a stop too; with -o ndjson one item per line.
 * On a terminal, in the default format, control and bidi characters show as
 * escapes, as in one answer's body (api-response.ts).
 */
export function openItemStream(format: OutputFormat, stdoutIsTTY: boolean, out: (chunk: string) => void): ItemStream<unknown> {
  if (format === 'ndjson') return { write: (items) => out(items.map((item) => `${stringifyJson(item)}\n`).join('')), end: () => {} };
  const forPerson = format === 'table' && stdoutIsTTY;
  return jsonArrayStream(forPerson ? (chunk) => out(safeText(chunk, { json: true, tab: true, newline: true })) : out);
}
