import { stringifyJson } from '../schemas/json';
import type { Pet } from '../schemas/pet';
import type { OutputFormat } from './format';
import { renderPets } from './pets';
import type { RenderOptions } from './records';
import { stdoutJson } from '../sanitize';

/**
 * `pets list --all` and `petctl api --paginate` written as the pages come, so
 * that a listing stopped halfway (exit 5, Ctrl-C) leaves on stdout everything
 * it fetched. The animals of `pets list --all`:
 * - json: the array opened at the first animal, one item at a time, and
 *   closed by end() on a stop too: stdout is always one valid JSON array,
 *   byte for byte what renderPets prints for the same animals;
 * - ndjson, and table off a terminal (tab-separated lines): line by line;
 * - csv: the header once, then the rows;
 * - table on a terminal: the columns are sized to every row, so it is
 *   printed by end(), with what was fetched.
 */
export type ListingStream = ItemStream<Pet>;

/** A listing of any items. */
export interface ItemStream<T> {
  /** One page's items. */
  write(items: readonly T[]): void;
  /** Ends the output; called once, after the last page or on a stop. */
  end(): void | Promise<void>;
}

export function openListingStream(format: OutputFormat, options: RenderOptions, out: (chunk: string) => void): ListingStream {
  switch (format) {
    case 'json':
      return jsonArrayStream(out, options.tty);
    case 'csv':
      return csvStream(options, out);
    case 'table':
      if (options.tty) return bufferedStream((pets) => out(renderPets(pets, format, options)));
      return { write: (pets) => out(renderPets(pets, format, options)), end: () => {} };
    case 'ndjson':
      return { write: (pets) => out(renderPets(pets, format, options)), end: () => {} };
  }
}

/**
 * `petctl api --paginate`'s items: by default and with -o json one JSON array of every page's items
 * (pretty, int64-exact), closed on a stop too; with -o ndjson one item per line. On a terminal, C1 and
 * bidi characters show as `\u` escapes, as in one answer's body (api-response.ts).
 */
export function openItemStream(format: OutputFormat, stdoutIsTTY: boolean, out: (chunk: string) => void): ItemStream<unknown> {
  if (format === 'ndjson') return { write: (items) => out(items.map((item) => `${stdoutJson(stringifyJson(item), stdoutIsTTY)}\n`).join('')), end: () => {} };
  return jsonArrayStream(out, stdoutIsTTY);
}

/** Keeps every item and hands them over at the end (a terminal's table, --query). */
export function bufferedStream<T = Pet>(atEnd: (items: readonly T[]) => void | Promise<void>): ItemStream<T> {
  const kept: T[] = [];
  return { write: (page) => void kept.push(...page), end: () => atEnd(kept) };
}

/**
 * One JSON array, opened at the first item and closed by end(): byte for byte stringifyJson(all, 2),
 * through stdoutJson on a terminal.
 */
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

function csvStream(options: RenderOptions, out: (chunk: string) => void): ListingStream {
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
