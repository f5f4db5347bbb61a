import type { Context } from '../../context';
import { InvalidResponseError, PetctlError, UsageError } from '../../errors';
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
  const status = statusLine(ctx, query !== undefined || (output === 'table' && options.tty));
  let animals = 0;
  let pageUrl = from;
  let pageNumber = 1;
  const hooks = { paced: true, wait: (ms: number, why: string) => ctx.wait(ms, status.enabled ? `${stop.listingProgress(pageNumber, animals)}; ${why}` : why) };
  try {
    for await (const page of petPages(http, params, { from, hooks })) {
      if (verbose) ctx.line(`page ${page.number}: ${page.pets.length} animals${page.next ? `, next ${page.next}` : ', no next link'}`);
      if (!page.next && page.pets.length >= params.limit) {
        ctx.notice(`petctl: page ${page.number} is full but came without a Link rel="next"; the server may hold more animals than were listed`);
      }
      stream.write(page.pets);
      animals += page.pets.length;
      pageNumber = page.number + 1;
      if (page.next !== undefined) pageUrl = page.next;
      status.show(stop.listingProgress(page.number, animals));
    }
  } catch (error) {
    status.clear();
    stream.end();
    await queried;
    // A bad answer (a page that is not Pets, a next link off-origin or back to a page) would be the same again: no way on.
    if (!(error instanceof PetctlError) || error instanceof InvalidResponseError) throw error;
    const command = { limit: flags.limit, status: flags.status, profile: ctx.globals.profile, baseUrl: ctx.globals.baseUrl, output, query };
    ctx.line(stop.stopLine(animals, pageNumber, stop.continueCommand(command, tokenFor(pageUrl))));
    throw stop.listingStopError(error, pageNumber);
  }
  status.clear();
  if (animals === 0 && output === 'table' && query === undefined) ctx.notice('No animals found.');
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

/**
 * Pages and animals so far, redrawn in place on stderr while a listing runs on a terminal. Only
 * when nothing else is written to the terminal meanwhile: stdout is elsewhere, or what goes there
 * waits for the end (a table, --query). Nothing with -q.
 */
function statusLine(ctx: Context, outputWaits: boolean) {
  const { terminal } = ctx;
  const enabled = terminal.stderrIsTerminal && !ctx.globals.quiet && (!terminal.stdoutIsTerminal || outputWaits);
  return {
    enabled,
    show(text: string) {
      if (enabled) terminal.status.show(`petctl: ${text}`);
    },
    clear() {
      terminal.status.clear();
    },
  };
}
