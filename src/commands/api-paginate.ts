import type { Context } from '../context';
import { UsageError } from '../errors';
import { type ApiOptions, requestIo } from './api';

/**
 * `petctl api --paginate`: the GET petctl api builds, then every page its
 * answers link to as rel="next", paced as `pets list --all` is (the minute
 * window is the pace; --max-wait bounds each page's other waits). The pages'
 * items go out as they come, as one JSON array or one per line (-o ndjson);
 * --query runs once, over all of them. A stop (exit 5, Ctrl-C, the network)
 * leaves what was fetched on stdout and says on stderr how to continue: the
 * same command from the page not fetched.
 */
export async function apiPaginateRun(options: ApiOptions, ctx: Context): Promise<void> {
  const { output, query, verbose } = ctx.globals;
  // Fields go in the query of a GET: with --paginate they do not make a POST, as they would alone.
  const flags = { ...options, method: options.method ?? 'GET' };
  checkPaginate(flags, output, query);
  const [{ checkFlags, buildRawRequest }, { rawPages }, { openItemStream }, { bufferedStream }, stop, queryOutput] = await Promise.all([
    import('../api/endpoints/raw-request'),
    import('../api/endpoints/raw-pages'),
    import('../output/api-pages'),
    import('../output/listing-stream'),
    import('../output/listing-stop'),
    query === undefined ? undefined : import('../output/query'),
  ]);
  checkFlags(flags);
  const { http, target } = await ctx.api();
  const first = await buildRawRequest(flags, target.baseUrl, requestIo(ctx));
  const tty = ctx.terminal.stdoutIsTerminal;
  // --query needs the whole array: it runs at the end, or on a stop over what was fetched.
  const stream =
    queryOutput === undefined || query === undefined
      ? openItemStream(output, tty, (chunk) => void ctx.io.stdout.write(chunk))
      : bufferedStream<unknown>((items) => queryOutput.writeQueried(ctx.io.stdout, tty, query, items, output));
  const progress = new stop.ListingProgress(ctx, query !== undefined, 'item');
  let pageUrl = first.url!;
  try {
    for await (const page of rawPages(http, { ...first, url: pageUrl }, { paced: true, wait: progress.wait })) {
      if (verbose) ctx.line(`page ${page.number}: ${page.body.length} items${page.next ? `, next ${page.next}` : ', no next link'}`);
      stream.write(page.body);
      if (page.next !== undefined) pageUrl = page.next;
      progress.done(page.number, page.body.length);
    }
  } catch (error) {
    progress.clear();
    stream.end();
    const command = { headers: options.headers, profile: ctx.globals.profile, baseUrl: ctx.globals.baseUrl, output, query };
    throw progress.stopped(error, () => stop.continuePaginateCommand(command, pathUnder(target.baseUrl, pageUrl)), stop.hiddenValuesNote(command));
  }
  progress.clear();
  stream.end();
}

/** What --paginate cannot do, refused before anything is sent. */
function checkPaginate(flags: ApiOptions & { method: string }, output: string, query: string | undefined): void {
  if (flags.method.toUpperCase() !== 'GET') throw new UsageError(`--paginate follows the pages of a GET, not of -X ${flags.method}`);
  if (flags.input !== undefined) throw new UsageError('--paginate sends GETs, which carry no body: --input cannot go with it', 'fields (-f, -F) go in the first page\'s query');
  if (flags.include) throw new UsageError("-i shows one answer's head, and --paginate prints the items of many", '-v traces every page');
  if (output === 'csv' && query === undefined) throw new UsageError('--paginate prints the items as JSON: one array, or one per line with -o ndjson; not csv');
}

/**
 * The page to continue from as petctl api takes it: a path under the base URL when it is
 * one, since the built-in sandbox listens on another port each run; else the absolute link.
 */
function pathUnder(baseUrl: string, pageUrl: string): string {
  return pageUrl.startsWith(`${baseUrl}/`) ? pageUrl.slice(baseUrl.length) : pageUrl;
}
