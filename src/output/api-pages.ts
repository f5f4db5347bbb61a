import { stringifyJson } from '../schemas/json';
import type { OutputFormat } from './format';
import { type ItemStream, jsonArrayStream } from './listing-stream';
import { stdoutJson } from '../sanitize';

/**
 * `petctl api --paginate` written as the pages come, so that a stop keeps what
 * was fetched: by default and with -o json one JSON array of every page's items
 * (pretty, int64-exact), closed on a stop too; with -o ndjson one item per line.
 * On a terminal, C1 and bidi characters show as `\u` escapes, as in one
 * answer's body (api-response.ts).
 */
export function openItemStream(format: OutputFormat, stdoutIsTTY: boolean, out: (chunk: string) => void): ItemStream<unknown> {
  if (format === 'ndjson') return { write: (items) => out(items.map((item) => `${stdoutJson(stringifyJson(item), stdoutIsTTY)}\n`).join('')), end: () => {} };
  return jsonArrayStream(out, stdoutIsTTY);
}
