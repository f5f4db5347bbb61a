import { type PetctlError, RateLimitError } from '../errors';
import { formatCount, listingStop } from './waits';

/**
 * What `pets list --all` says about itself on stderr: the animals so far
 * while it runs, and, when it stops before the last page, how far it got
 * and the command that continues from there (`--starting-token`).
 */


/** The status line while a listing runs: `page 13, 1,200 animals so far`. */
export function listingProgress(page: number, animals: number): string {
  return `page ${page}, ${formatCount(animals)} animals so far`;
}

/**
 * A word as a POSIX shell reads it back: as it is when it holds nothing a shell treats
 * specially, else in single quotes (an inner ' as '\'', the one way to quote it there).
 */
export function shellWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** What the continuing command repeats of the first: the service, the filters and the output. */
export interface ListingCommand {
  profile?: string;
  baseUrl?: string;
  output: string;
  query?: string;
  limit?: number;
  status?: string;
}

/** `petctl pets list --all [filters] --starting-token <token>`, ready to paste into a shell. */
export function continueCommand(command: ListingCommand, token: string): string {
  const words = ['petctl', 'pets', 'list', '--all'];
  if (command.limit !== undefined) words.push('--limit', String(command.limit));
  if (command.status !== undefined) words.push('--status', command.status);
  if (command.profile !== undefined) words.push('-p', command.profile);
  if (command.baseUrl !== undefined) words.push('--base-url', command.baseUrl);
  if (command.output !== 'table') words.push('-o', command.output);
  if (command.query !== undefined) words.push('--query', command.query);
  words.push('--starting-token', token);
  return words.map(shellWord).join(' ');
}

/** `stopped after 1,200 animals (page 13); continue with: petctl pets list --all --starting-token '…'` */
export function stopLine(animals: number, page: number, command: string): string {
  return `stopped after ${formatCount(animals)} animals (page ${page}); continue with: ${command}`;
}

/** The error a stopped listing ends with: a rate-limit stop worded for the listing (output/waits.ts); other errors stand as they are. */
export function listingStopError(error: PetctlError, page: number): PetctlError {
  if (!(error instanceof RateLimitError) || error.stop === undefined) return error;
  const { message, hint } = listingStop(error.stop, page);
  return new RateLimitError(message, { code: error.code, status: error.status, body: error.body, retryAt: error.retryAt, stop: error.stop, hint: hint ?? error.hint });
}
