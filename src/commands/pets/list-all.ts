import type { Context } from '../../context';
import { UsageError } from '../../errors';
import type { HttpClient } from '../../api/client';
import type { ListPetsParams } from '../../api/endpoints/pets';
import { LIMIT_MAX } from '../../schemas/constants';
import type { ListOptions } from './list';

/**
 * `pets list --all`: every page, paced like an import (the minute window is
 * the pace; --max-wait bounds each page's other waits), written as it comes
 * (output/listing-stream.ts). A stop (exit 5, Ctrl-C, the network) leaves what
 * was fetched on stdout and says on stderr how to continue: the next page's
 * link, as --starting-token.
 */
export async function listAllRun(flags: ListOptions, ctx: Context): Promise<void> {
  const [{ http }, { petPages, firstPageUrl }, { openListingStream, bufferedStream }, { renderOptions }, stop, { writeResult }, { renderPets }, { loadTable }] = await Promise.all([
    ctx.api(),
    import('../../api/endpoints/pages'),
    import('../../output/listing-stream'),
    import('../../output/settings'),
    import('../../output/listing-stop'),
    import('../../output/result'),
    import('../../output/pets'),
    import('../../output/records'),
  ]);
  const { output, query, verbose } = ctx.globals;
  // The largest page the specification allows unless --limit says otherwise: fewer requests against the plan's quota.
  const params = { limit: flags.limit ?? LIMIT_MAX, status: flags.status };
  const from = flags.startingToken === undefined ? firstPageUrl(http, params) : startingUrl(flags.startingToken, flags, http);
  const options = renderOptions(ctx);
  if (options.tty) await loadTable();
  const write = (chunk: string) => void ctx.io.stdout.write(chunk);
  // --query needs the whole array: it runs at the end, or on a stop over what was fetched.
  let queried: Promise<void> = Promise.resolve();
  const stream =
    query === undefined
      ? openListingStream(output, options, write)
      : bufferedStream((pets) => (queried = writeResult(ctx, pets, () => renderPets(pets, output, options))));
  const progress = new stop.ListingProgress(ctx, query !== undefined || (output === 'table' && options.tty));
  let pageUrl = from;
  const hooks = { paced: true, wait: progress.wait };
  try {
    for await (const page of petPages(http, params, { from, hooks })) {
      if (verbose) ctx.line(`page ${page.number}: ${page.pets.length} animals${page.next ? `, next ${page.next}` : ', no next link'}`);
      if (!page.next && page.pets.length >= params.limit) {
        ctx.notice(`petctl: page ${page.number} is full but came without a Link rel="next"; the server may hold more animals than were listed`);
      }
      stream.write(page.pets);
      if (page.next !== undefined) pageUrl = page.next;
      progress.done(page.number, page.pets.length);
    }
  } catch (error) {
    progress.clear();
    stream.end();
    await queried;
    const command = { limit: flags.limit, status: flags.status, profile: ctx.globals.profile, baseUrl: ctx.globals.baseUrl, output, query };
    throw progress.stopped(error, () => stop.continueCommand(command, tokenFor(pageUrl)));
  }
  progress.clear();
  if (progress.items === 0 && output === 'table' && query === undefined) ctx.notice('No animals found.');
  stream.end();
  await queried;
}

/**
 * The token a stopped listing prints: the next page's link without its origin, which is
 * always the base URL's (petPages follows no other). The built-in sandbox listens on
 * another port each run, so an absolute link would not outlive the run that printed it.
 */
function tokenFor(pageUrl: string): string {
  const { pathname, search } = new URL(pageUrl);
  return pathname + search;
}

/**
 * --starting-token: the link to the next page that a stopped listing printed, on the base
 * URL's origin (absolute, or a path there). It goes where every next link may go (where the
 * key may be sent), and the filters it names are those of the listing it continues.
 */
function startingUrl(token: string, params: ListPetsParams, http: HttpClient): string {
  const base = new URL(http.buildUrl('/pets'));
  let url: URL;
  try {
    if (token.startsWith('/') && !token.startsWith('//')) url = new URL(token, base.origin);
    else url = new URL(token);
  } catch {
    throw new UsageError(`--starting-token must be the link a stopped \`pets list --all\` printed, not "${token}"`);
  }
  if (url.origin !== base.origin) {
    throw new UsageError(`--starting-token leads to ${url.origin}, not to the base URL's origin (${base.origin}); the API key goes only there`);
  }
  for (const [name, given] of [['limit', params.limit], ['status', params.status]] as const) {
    const named = url.searchParams.get(name);
    if (given !== undefined && named !== null && named !== String(given)) {
      throw new UsageError(`--starting-token continues a listing with ${name}=${named}, not --${name} ${String(given)}`, `leave out --${name}, or give --${name} ${named}`);
    }
  }
  return url.toString();
}
