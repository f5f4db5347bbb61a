import type { RowWords } from '../bulk/runner';
import { plural } from '../bulk/results';
import { ExitCode, PetctlError } from '../errors';
import type { Pet } from '../schemas/pet';
import { formatCounted } from './waits';

/**
 * What an import says about rows whose outcome is unknown, and about
 * --retry-unknown's look for them (bulk/unknown-rows.ts): every hint says
 * what the next command will do.
 */

/** Where the animals are, as the hints name it: the base URL, or the built-in sandbox. */
export function targetLabel(baseUrl: string | undefined): string {
  return baseUrl ?? 'the built-in sandbox';
}

/** After an import that left rows unknown (and `notSent` rows it did not reach). */
export function retryUnknownHint(target: string, notSent = 0): string {
  const rest = notSent > 0 ? `, then the ${notSent === 1 ? 'row' : `${notSent} rows`} not sent yet` : '';
  return `rerun with --retry-unknown: it lists the animals on ${target} and sends only the rows it does not find${rest}`;
}

/** The words of a row's own message. */
export function rowWords(target: string): RowWords {
  return {
    retryUnknown: `rerun with --retry-unknown: it lists the animals on ${target} and sends the row again only if it does not find it`,
    ambiguous: (candidates) =>
      candidates.length === 1
        ? `sent earlier without an answer; the one animal with the fields it sent (${idList(candidates)}) may be another row's, which sent the same; neither sent nor recorded`
        : `sent earlier without an answer; ${candidates.length} animals have the fields it sent (${idList(candidates)}); neither sent nor recorded`,
  };
}

function idList(ids: ReadonlyArray<Pet['id']>): string {
  return `${ids.length === 1 ? 'id' : 'ids'} ${ids.map(String).join(', ')}`;
}

/** After an import that left rows ambiguous (exit 6). */
export function ambiguousHint(othersToFix: boolean): string {
  const others = othersToFix ? '; fix the rejected and invalid rows too' : '';
  return `a rerun finds them ambiguous again: check each row's candidate ids (in its output line) with petctl pets get <id>; if the row's animal is among them, take the row out of the file; if not, add it with petctl pets add and take it out${others}`;
}

/** What the look found, before anything is sent. */
export interface LookupFacts {
  rows: number;
  animals: number;
  pages: number;
  found: number;
  resend: number;
  ambiguous: number;
}

/** `looked for 3 rows sent without an answer among 1,234 animals on … (13 pages): 2 found, 1 not found (sent again), 0 ambiguous` */
export function lookupLine(facts: LookupFacts, target: string): string {
  const { rows, animals, pages, found, resend, ambiguous } = facts;
  return `looked for ${plural(rows, 'row')} sent without an answer among ${formatCounted(animals, 'animal')} on ${target} (${plural(pages, 'page')}): ${found} found, ${resend} not found (sent again), ${ambiguous} ambiguous`;
}

/** The look stopped (network, a rate limit, Ctrl-C): the line before its error. */
export function lookupStoppedLine(animals: number, page: number): string {
  return `looking for the rows sent without an answer stopped after ${formatCounted(animals, 'animal')} (page ${page}); nothing was sent and nothing recorded`;
}

/**
 * A page as full as asked for came without a next link: the service may hold
 * animals that were not listed, so a row not found may exist after all.
 */
export function incompleteListingError(page: number, size: number, notFound: number, target: string): PetctlError {
  return new PetctlError(
    ExitCode.NETWORK,
    `the listing of ${target} may be incomplete: page ${page} held ${size} animals, as many as asked for, and came without a Link rel="next"; ${plural(notFound, 'row')} not found there may exist, so nothing was sent`,
    {
      code: 'listing_incomplete',
      hint: 'check those rows with petctl pets list --all, add the missing ones with petctl pets add and take them out of the file; a rerun without --retry-unknown sends the other rows and leaves them alone',
    },
  );
}
