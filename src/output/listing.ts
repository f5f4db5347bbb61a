import { InvalidResponseError, NotFoundError, PetctlError, RateLimitError, RejectedError } from '../errors';
import type { GlobalOptions, OutputFormat } from '../globals';
import { stdoutJson } from '../sanitize';
import { stringifyJson } from '../schemas/json';
import type { Pet } from '../schemas/pet';
import { jsonLines, shellWord } from './formats';
import { renderPets } from './pets';
import type { RenderOptions } from './records';
import type { OutputHost } from './stderr';
import { formatCounted, listingStop, reworded } from './waits';

/** The walk `pets list --all` and `petctl api --paginate` print. Their items are written as the pages come: stopped
 * (exit 5, Ctrl-C), stdout holds all fetched, a JSON array closed too; only a terminal's table waits for end() (called
 * once, after the last page or on a stop). On stderr: how far (`page 13, 1,200 animals so far`), how to continue. */
export interface ItemStream<T> {
  write(items: readonly T[]): void;
  end(): void | Promise<void>;
}

export function openListingStream(format: OutputFormat, options: RenderOptions, out: (chunk: string) => void): ItemStream<Pet> {
  if (format === 'json' || format === 'ndjson') return openItemStream(format, options.tty, out);
  if (options.tty && format === 'table') return bufferedStream((pets) => out(renderPets(pets, format, options)));
  // Piped, each page as it renders; csv's header line (its keys, no quoted newline) once, ending at its LF.
  let headed = false;
  return {
    write(pets) {
      if (pets.length === 0) return;
      const text = renderPets(pets, format, options);
      out(headed ? text.slice(text.indexOf('\n') + 1) : text);
      headed = format === 'csv';
    },
    end() {
      if (format === 'csv' && !headed) out(renderPets([], 'csv', options));
    },
  };
}

/** `petctl api --paginate`'s items: one JSON array of every page's items, opened at the first item and closed by
 * end(), byte for byte jsonText(all items); or with -o ndjson an item a line. */
export function openItemStream(format: OutputFormat, stdoutIsTTY: boolean, out: (chunk: string) => void): ItemStream<unknown> {
  if (format === 'ndjson') return { write: (items) => out(jsonLines(items, stdoutIsTTY)), end: () => {} };
  let count = 0;
  return {
    write(items) {
      // Each item as stringifyJson(array, 2) lays it out: two spaces deeper, items joined by ",\n".
      const text = items.map((item) => stringifyJson(item, 2).replace(/^/gm, '  ')).join(',\n');
      if (text === '') return;
      out(`${count === 0 ? '[\n' : ',\n'}${stdoutJson(text, stdoutIsTTY)}`);
      count += items.length;
    },
    end: () => out(count === 0 ? '[]\n' : '\n]\n'),
  };
}

/** Keeps every item and hands them over at the end (a terminal's table, --query). */
export function bufferedStream<T = Pet>(atEnd: (items: readonly T[]) => void | Promise<void>): ItemStream<T> {
  const kept: T[] = [];
  return { write: (page) => void kept.push(...page), end: () => atEnd(kept) };
}

export function listingProgress(page: number, items: number, noun = 'animal'): string {
  return `page ${page}, ${formatCounted(items, noun)} so far`;
}

/** How far a listing got, redrawn in place on a terminal when nothing else goes to it meanwhile (stdout is elsewhere,
 * or waits for the end: a table, --query). Not with -q. */
export class ListingProgress {
  private readonly enabled: boolean;
  /** Being fetched, from 1. */
  page = 1;
  items = 0;

  constructor(
    private readonly sink: OutputHost,
    outputWaits: boolean,
    private readonly noun = 'animal',
  ) {
    const { terminal } = sink;
    this.enabled = terminal.stderrIsTerminal && !sink.globals.quiet && (!terminal.stdoutIsTerminal || outputWaits);
  }

  done(page: number, items: number): void {
    this.items += items;
    this.page = page + 1;
    if (this.enabled) this.sink.terminal.status.show(`petctl: ${listingProgress(page, this.items, this.noun)}`);
  }

  readonly wait = (ms: number, why: string): Promise<void> =>
    this.sink.wait(ms, this.enabled ? `${listingProgress(this.page, this.items, this.noun)}; ${why}` : why);

  clear(): void {
    this.sink.terminal.status.clear();
  }

  /** The error a stopped listing ends with, after the lines saying how to continue (none after an answer that would
   * come again: one not as the specification says, a 400 or a 404). */
  stopped(error: unknown, continueWith: () => string, note?: string): unknown {
    if (!(error instanceof PetctlError) || comesAgain(error)) return error;
    this.sink.line(stopLine(this.items, this.page, continueWith(), this.noun));
    if (note !== undefined) this.sink.line(note);
    if (!(error instanceof RateLimitError) || error.stop === undefined) return error;
    const { message, hint } = listingStop(error.stop, this.page);
    return reworded(error, message, hint ?? error.hint);
  }
}

/** An answer the same request would get again: continuing from that page cannot get past it. */
function comesAgain(error: PetctlError): boolean {
  return error instanceof InvalidResponseError || error instanceof RejectedError || error instanceof NotFoundError;
}

/** What a continuing command repeats of the first, with its own words: the service and the output. */
type Globals = Pick<GlobalOptions, 'profile' | 'baseUrl' | 'query'> & { output: string };

export function continueCommand(command: Globals & { limit?: number; status?: string }, token: string): string {
  const words = ['petctl', 'pets', 'list', '--all'];
  if (command.limit !== undefined) words.push('--limit', String(command.limit));
  if (command.status !== undefined) words.push('--status', command.status);
  return [...words, ...globalWords(command), '--starting-token', token].map(shellWord).join(' ');
}

const HIDDEN_VALUE = '<value>';

/** `petctl api --paginate`'s own words: its -H headers, their values hidden (a value may be a secret, and this line
 * ends up in logs); the next page's link carries its query. */
export function continuePaginateCommand(command: Globals & { headers: readonly string[] }, path: string): string {
  const headers = command.headers.flatMap((header) => ['-H', `${header.slice(0, header.indexOf(':')).trim()}: ${HIDDEN_VALUE}`]);
  return ['petctl', 'api', '--paginate', path, ...headers, ...globalWords(command)].map(shellWord).join(' ');
}

export function hiddenValuesNote(command: { headers: readonly string[] }): string | undefined {
  return command.headers.length === 0 ? undefined : `(-H values are shown as ${HIDDEN_VALUE} so that no secret is printed; put them back before running it)`;
}

function globalWords(command: Globals): string[] {
  const words: string[] = [];
  if (command.profile !== undefined) words.push('-p', command.profile);
  if (command.baseUrl !== undefined) words.push('--base-url', command.baseUrl);
  if (command.output !== 'table') words.push('-o', command.output);
  if (command.query !== undefined) words.push('--query', command.query);
  return words;
}

export function stopLine(items: number, page: number, command: string, noun = 'animal'): string {
  return `stopped after ${formatCounted(items, noun)} (page ${page}); continue with: ${command}`;
}
