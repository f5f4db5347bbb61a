import type { Context } from '../../context';
import { writeResult } from '../../output/result';
import { LIMIT_DEFAULT, LIMIT_MAX, type PetStatusValue } from '../../schemas/constants';
import type { ApiResponse } from '../../api/request';
import { listPets } from '../../api/endpoints/pets';
import { renderPets } from '../../output/pets';
import { renderOptions } from '../../output/settings';

export interface ListOptions {
  limit?: number;
  status?: PetStatusValue;
  /** Follow Link rel="next" to the last page; `limit` is then the page size. */
  all?: boolean;
  /** Continue a stopped --all listing from this next-page link (implies --all). */
  startingToken?: string;
  /** --cache, in ms. */
  cache?: number;
}


export async function listRun(options: ListOptions, ctx: Context): Promise<void> {
  const { http } = await ctx.api();
  const { output, query } = ctx.globals;
  const { pets, response } = await listPets(http, { limit: options.limit, status: options.status, cacheForMs: options.cache });
  const more = response.header('link') !== undefined && isPersonWatching(ctx) && (await hasNextPage(response));
  if (pets.length === 0 && output === 'table' && query === undefined) ctx.notice('No animals found.');
  await writeResult(ctx, pets, () => renderPets(pets, output, renderOptions(ctx)));
  // After the page, so that it is the last line the person sees.
  if (more) ctx.notice(morePagesHint(pets.length, options.limit));
}

/** stdout and stderr are both a terminal: a person reads the page, and a hint on stderr is seen, not piped away. */
function isPersonWatching(ctx: Context): boolean {
  return ctx.terminal.personWatching();
}

/** The Link parser is loaded only for a page that has a Link header, shown to a person (docs/performance.md). */
async function hasNextPage(response: ApiResponse): Promise<boolean> {
  const { nextLink } = await import('../../api/endpoints/pages');
  try {
    return nextLink(response.header('link'), response.url) !== undefined;
  } catch {
    // A garbled Link header does not spoil the page; only --all, which would follow it, fails on it.
    return false;
  }
}

/** The server has a next page (Link rel="next") that a plain `pets list` does not fetch. */
function morePagesHint(shown: number, limit: number | undefined): string {
  const larger = (limit ?? LIMIT_DEFAULT) < LIMIT_MAX ? `, or up to ${LIMIT_MAX} with --limit ${LIMIT_MAX}` : '';
  return `More animals than these ${shown}: see them all with --all${larger}.`;
}
