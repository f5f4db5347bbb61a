import type { Context } from '../context';
import { UsageError } from '../errors';
import { type ApiOptions, requestIo } from './api';
import { buildRawRequest, checkFlags } from '../api/endpoints/raw-request';
import { rawPages } from '../api/endpoints/pages';
import { continuePaginateCommand, hiddenValuesNote, openItemStream } from '../output/listing';
import { printPages } from './print-pages';

/** `petctl api --paginate`: the GET petctl api builds, then every page linked as rel="next" (output/listing.ts). */
export async function apiPaginateRun(options: ApiOptions, ctx: Context): Promise<void> {
  if (options.cache !== undefined) throw new UsageError('--cache keeps one answer, and --paginate follows many: leave out one of them');
  const { output, query } = ctx.globals;
  // Fields go in the query of a GET: with --paginate they do not make a POST, as they would alone.
  const flags = { ...options, method: options.method ?? 'GET' };
  if (flags.method.toUpperCase() !== 'GET') throw new UsageError(`--paginate follows the pages of a GET, not of -X ${flags.method}`);
  if (flags.input !== undefined) throw new UsageError('--paginate sends GETs, which carry no body: --input cannot go with it', 'fields (-f, -F) go in the first page\'s query');
  if (flags.include) throw new UsageError("-i shows one answer's head, and --paginate prints the items of many", '-v traces every page');
  if (output === 'csv' && query === undefined) throw new UsageError('--paginate prints the items as JSON: one array, or one per line with -o ndjson; not csv');
  checkFlags(flags);
  const { http, target } = await ctx.api();
  const first = await buildRawRequest(flags, target.baseUrl, requestIo(ctx));
  const command = { ...ctx.globals, headers: options.headers };
  await printPages<unknown>(ctx, {
    pages: (walk) => rawPages(http, { ...first, url: first.url! }, walk),
    from: first.url!,
    stream: () => openItemStream(output, ctx.terminal.stdoutIsTerminal, (chunk) => void ctx.io.stdout.write(chunk)),
    noun: 'item',
    continueWith: (pageUrl) => continuePaginateCommand(command, pathUnder(target.baseUrl, pageUrl)),
    note: hiddenValuesNote(command),
  });
}

/** The page to continue from: a path under the base URL when it is one (the built-in sandbox's port changes each run). */
function pathUnder(baseUrl: string, pageUrl: string): string {
  return pageUrl.startsWith(`${baseUrl}/`) ? pageUrl.slice(baseUrl.length) : pageUrl;
}
