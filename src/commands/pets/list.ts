import type { Context } from '../../context';
import { renderOptions, writeResult } from '../../output/records';
import { LIMIT_DEFAULT, LIMIT_MAX, type PetStatus } from '../../schemas/constants';
import type { ApiResponse } from '../../api/request';
import { listPets } from '../../api/endpoints/pets';
import { renderPets } from '../../output/pets';

/** --all and --starting-token: list-all.ts; --cache in ms. */
export interface ListOptions {
  limit?: number;
  status?: PetStatus;
  all?: boolean;
  startingToken?: string;
  cache?: number;
}

export async function listRun(options: ListOptions, ctx: Context): Promise<void> {
  const { http } = await ctx.api();
  const { output, query } = ctx.globals;
  const { pets, response } = await listPets(http, { limit: options.limit, status: options.status, cacheForMs: options.cache });
  // Only for a person, who reads the page on stdout and sees the hint on stderr.
  const more = response.header('link') !== undefined && ctx.terminal.personWatching() && (await hasNextPage(response));
  if (pets.length === 0 && output === 'table' && query === undefined) ctx.notice('No animals found.');
  await writeResult(ctx, pets, () => renderPets(pets, output, renderOptions(ctx)));
  // After the page, so that it is the last line the person sees.
  if (more) ctx.notice(morePagesHint(pets.length, options.limit));
}

/** The Link parser loads only for a page with a Link header, shown to a person (docs/performance.md). */
async function hasNextPage(response: ApiResponse): Promise<boolean> {
  const { nextLink } = await import('../../api/endpoints/pages');
  try {
    return nextLink(response.header('link'), response.url) !== undefined;
  } catch {
    // A garbled Link header does not spoil the page; only --all, which would follow it, fails on it.
    return false;
  }
}

function morePagesHint(shown: number, limit: number | undefined): string {
  const larger = (limit ?? LIMIT_DEFAULT) < LIMIT_MAX ? `, or up to ${LIMIT_MAX} with --limit ${LIMIT_MAX}` : '';
  return `More animals than these ${shown}: see them all with --all${larger}.`;
}
