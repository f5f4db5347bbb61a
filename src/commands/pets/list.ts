import { type Command, Option } from 'commander';
import type { Context } from '../../context';
import { writeResult } from '../../output/result';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN, type PetStatusValue } from '../../schemas/constants';
import type { ApiResponse } from '../../api/request';
import { cacheOption, parseLimit, statusOption } from '../parsers';
import type { Invoke } from '../types';

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

export function registerList(pets: Command, invoke: Invoke): void {
  pets
    .command('list')
    .description('list animals (GET /pets)')
    .addOption(new Option('--limit <n>', `at most this many animals, ${LIMIT_MIN}-${LIMIT_MAX} (server default ${LIMIT_DEFAULT}); with --all, the page size`).argParser(parseLimit))
    .addOption(statusOption('only animals with this status'))
    .option('--all', `fetch every page, ${LIMIT_MAX} animals per request unless --limit says otherwise: follow the server's Link rel="next" until there is none (exit 7 if it leads off-origin or loops), paced by the plan's rate limit and printed as it comes`)
    .option('--starting-token <token>', 'continue a stopped --all listing from the next-page link it printed (implies --all)')
    // Pages of different ages joined into one listing could repeat or miss animals.
    .addOption(cacheOption().conflicts(['all', 'startingToken']))
    .addHelpText(
      'after',
      `
Examples:
  $ petctl pets list --status available
  $ petctl pets list --limit 100 -o csv > pets.csv
  $ petctl pets list | cut -f2          # names, one per line, when piped
  $ petctl pets list --all --limit 100 -o ndjson > all.ndjson
  $ petctl pets list --all -o json > all.json   # stopped? stderr gives the command that continues
  $ petctl pets list --all -o ndjson --starting-token '/v1/pets?limit=100&after=1200' >> all.ndjson
  $ petctl pets list --query '[?categoryId==\`2\`].name'
  $ petctl pets list --status available --cache 30s   # run again within 30 s: nothing sent

On a terminal, when the service has more animals than the page shows
(Link rel="next"), a line on stderr says so; -q hides it.

--all waits for the plan's minute window as often as it takes; --max-wait
bounds each page's other waits. Stopped (exit 5, Ctrl-C), it leaves what it
fetched on stdout (-o json: a closed array) and prints on stderr:
  stopped after 1,200 animals (page 13); continue with: petctl pets list --all --starting-token '…'`,
    )
    .action((options: ListOptions) => invoke((ctx) => listRun(options, ctx), { jsonResult: true }));
}

export async function listRun(options: ListOptions, ctx: Context): Promise<void> {
  if (options.all === true || options.startingToken !== undefined) {
    const { listAllRun } = await import('./list-all');
    return listAllRun(options, ctx);
  }
  const [{ http }, { listPets }, { renderPets }, { renderOptions }] = await Promise.all([
    ctx.api(),
    import('../../api/endpoints/pets'),
    import('../../output/pets'),
    import('../../output/settings'),
  ]);
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
