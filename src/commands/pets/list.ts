import { type Command, Option } from 'commander';
import type { Context } from '../../context';
import { writeResult } from '../../output/result';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN, type PetStatusValue } from '../../schemas/constants';
import type { ApiResponse } from '../../api/client';
import type { Pet } from '../../schemas/pet';
import { parseLimit, statusOption } from '../parsers';
import type { Invoke } from '../root';

export interface ListOptions {
  limit?: number;
  status?: PetStatusValue;
  /** Follow Link rel="next" to the last page; `limit` is then the page size. */
  all?: boolean;
}

export function registerList(pets: Command, invoke: Invoke): void {
  pets
    .command('list')
    .description('list animals (GET /pets)')
    .addOption(new Option('--limit <n>', `at most this many animals, ${LIMIT_MIN}-${LIMIT_MAX} (server default ${LIMIT_DEFAULT}); with --all, the page size`).argParser(parseLimit))
    .addOption(statusOption('only animals with this status'))
    .option('--all', `fetch every page, ${LIMIT_MAX} animals per request unless --limit says otherwise: follow the server's Link rel="next" until there is none (exit 7 if it leads off-origin or loops)`)
    .addHelpText(
      'after',
      `
Examples:
  $ petctl pets list --status available
  $ petctl pets list --limit 100 -o csv > pets.csv
  $ petctl pets list | cut -f2          # names, one per line, when piped
  $ petctl pets list --all --limit 100 -o ndjson > all.ndjson
  $ petctl pets list --query '[?categoryId==\`2\`].name'

On a terminal, when the service has more animals than the page shows
(Link rel="next"), a line on stderr says so; -q hides it.`,
    )
    .action((options: ListOptions) => invoke((ctx) => listRun(options, ctx), { jsonResult: true }));
}

export async function listRun(options: ListOptions, ctx: Context): Promise<void> {
  const [{ http }, { listPets }, { renderPets }, { renderOptions }] = await Promise.all([
    ctx.api(),
    import('../../api/endpoints/pets'),
    import('../../output/pets'),
    import('../../output/settings'),
  ]);
  const { output, query, verbose } = ctx.globals;
  // --all asks for the largest page the specification allows: fewer requests against the plan's quota.
  const limit = options.all ? (options.limit ?? LIMIT_MAX) : options.limit;
  const params = { limit, status: options.status };
  const render = (pets: readonly Pet[]) => renderPets(pets, output, renderOptions(ctx));
  // TSV and ndjson lines stand alone, so --all prints each page as it comes; json, csv, a terminal's table and --query need them all.
  const streams = options.all === true && query === undefined && (output === 'ndjson' || (output === 'table' && ctx.io.stdout.isTTY !== true));
  const pets: Pet[] = [];
  let count = 0;
  let more = false;
  if (options.all) {
    const { petPages } = await import('../../api/endpoints/pages');
    for await (const page of petPages(http, params)) {
      if (verbose) ctx.line(`page ${page.number}: ${page.pets.length} animals${page.next ? `, next ${page.next}` : ', no next link'}`);
      if (!page.next && page.pets.length >= (limit ?? LIMIT_DEFAULT)) {
        ctx.notice(`petctl: page ${page.number} is full but came without a Link rel="next"; the server may hold more animals than were listed`);
      }
      count += page.pets.length;
      if (streams) ctx.io.stdout.write(render(page.pets));
      else pets.push(...page.pets);
    }
  } else {
    const { pets: page, response } = await listPets(http, params);
    pets.push(...page);
    count = pets.length;
    more = response.header('link') !== undefined && isPersonWatching(ctx) && (await hasNextPage(response));
  }
  if (count === 0 && output === 'table' && query === undefined) ctx.notice('No animals found.');
  if (!streams) await writeResult(ctx, pets, () => render(pets));
  // After the page, so that it is the last line the person sees.
  if (more) ctx.notice(morePagesHint(count, limit));
}

/** stdout and stderr are both a terminal: a person reads the page, and a hint on stderr is seen, not piped away. */
function isPersonWatching(ctx: Context): boolean {
  return ctx.io.stdout.isTTY === true && ctx.io.stderr.isTTY === true;
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
