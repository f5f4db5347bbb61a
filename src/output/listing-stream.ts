import { stringifyJson } from '../schemas/json';
import type { Pet } from '../schemas/pet';
import type { OutputFormat } from '../globals';
import { renderPets } from './pets';
import { jsonLines } from './formats';
import type { RenderOptions } from './records';
import { stdoutJson } from '../sanitize';

/** `pets list --all` and `petctl api --paginate` as the pages come: a listing stopped halfway (exit 5, Ctrl-C) leaves
 * on stdout all it fetched, a JSON array closed too (docs/api-and-query.md); only a terminal's table waits for end(),
 * sized to every row. */
export interface ItemStream<T> {
  write(items: readonly T[]): void;
  /** Called once, after the last page or on a stop. */
  end(): void | Promise<void>;
}

export function openListingStream(format: OutputFormat, options: RenderOptions, out: (chunk: string) => void): ItemStream<Pet> {
  if (format === 'csv') return csvStream(options, out);
  if (format !== 'table') return openItemStream(format, options.tty, out);
  if (options.tty) return bufferedStream((pets) => out(renderPets(pets, format, options)));
  return { write: (pets) => out(renderPets(pets, format, options)), end: () => {} };
}

/** `petctl api --paginate`'s items: one JSON array of every page's items, or with -o ndjson an item a line. */
export function openItemStream(format: OutputFormat, stdoutIsTTY: boolean, out: (chunk: string) => void): ItemStream<unknown> {
  if (format === 'ndjson') return { write: (items) => out(jsonLines(items, stdoutIsTTY)), end: () => {} };
  return jsonArrayStream(out, stdoutIsTTY);
}

/** Keeps every item and hands them over at the end (a terminal's table, --query). */
export function bufferedStream<T = Pet>(atEnd: (items: readonly T[]) => void | Promise<void>): ItemStream<T> {
  const kept: T[] = [];
  return { write: (page) => void kept.push(...page), end: () => atEnd(kept) };
}

/** One JSON array, opened at the first item and closed by end(): byte for byte jsonText(all items). */
function jsonArrayStream(out: (chunk: string) => void, tty: boolean): ItemStream<unknown> {
  let count = 0;
  return {
    write(items) {
      // Each item as stringifyJson(array, 2) lays it out: two spaces deeper, items joined by ",\n".
      const text = items.map((item) => stringifyJson(item, 2).replace(/^/gm, '  ')).join(',\n');
      if (text === '') return;
      out(`${count === 0 ? '[\n' : ',\n'}${stdoutJson(text, tty)}`);
      count += items.length;
    },
    end: () => out(count === 0 ? '[]\n' : '\n]\n'),
  };
}

function csvStream(options: RenderOptions, out: (chunk: string) => void): ItemStream<Pet> {
  let headed = false;
  return {
    write(pets) {
      if (pets.length === 0) return;
      const text = renderPets(pets, 'csv', options);
      // The header line (the column keys) has no quoted newline: it ends at the first LF.
      out(headed ? text.slice(text.indexOf('\n') + 1) : text);
      headed = true;
    },
    end() {
      if (!headed) out(renderPets([], 'csv', options));
    },
  };
}
