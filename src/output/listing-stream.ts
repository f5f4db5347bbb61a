import { stringifyJson } from '../schemas/json';
import type { Pet } from '../schemas/pet';
import type { OutputFormat } from './format';
import { renderPets } from './pets';
import type { RenderOptions } from './records';

/**
 * `pets list --all` written as the pages come, so that a listing stopped
 * halfway (exit 5, Ctrl-C) leaves on stdout everything it fetched:
 * - json: the array opened at the first animal, one item at a time, and
 *   closed by end() on a stop too: stdout is always one valid JSON array,
 *   byte for byte what renderPets prints for the same animals;
 * - ndjson, and table off a terminal (tab-separated lines): line by line;
 * - csv: the header once, then the rows;
 * - table on a terminal: the columns are sized to every row, so it is
 *   printed by end(), with what was fetched.
 */
export interface ListingStream {
  /** One page's animals. */
  write(pets: readonly Pet[]): void;
  /** Ends the output; called once, after the last page or on a stop. */
  end(): void;
}

export function openListingStream(format: OutputFormat, options: RenderOptions, out: (chunk: string) => void): ListingStream {
  switch (format) {
    case 'json':
      return jsonArrayStream(out);
    case 'csv':
      return csvStream(options, out);
    case 'table':
      if (options.tty) return bufferedStream((pets) => out(renderPets(pets, format, options)));
      return { write: (pets) => out(renderPets(pets, format, options)), end: () => {} };
    case 'ndjson':
      return { write: (pets) => out(renderPets(pets, format, options)), end: () => {} };
  }
}

/** Keeps every animal and hands them over at the end (a terminal's table, --query). */
export function bufferedStream(atEnd: (pets: readonly Pet[]) => void): ListingStream {
  const pets: Pet[] = [];
  return { write: (page) => void pets.push(...page), end: () => atEnd(pets) };
}

function jsonArrayStream(out: (chunk: string) => void): ListingStream {
  let items = 0;
  return {
    write(pets) {
      // Each item as stringifyJson(array, 2) lays it out: two spaces deeper, items joined by ",\n".
      const text = pets.map((pet) => stringifyJson(pet, 2).replace(/^/gm, '  ')).join(',\n');
      if (text === '') return;
      out(`${items === 0 ? '[\n' : ',\n'}${text}`);
      items += pets.length;
    },
    end: () => out(items === 0 ? '[]\n' : '\n]\n'),
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
