import type { Context } from '../../context';
import { UsageError } from '../../errors';
import type { HttpClient } from '../../api/client';
import { refuseUserInfo } from '../../api/request';
import type { ListPetsParams } from '../../api/endpoints/pets';
import { LIMIT_MAX } from '../../schemas/constants';
import type { ListOptions } from './list';
import { firstPageUrl, pathOf, petPages } from '../../api/endpoints/pages';
import { loadTable, renderOptions } from '../../output/records';
import { continueCommand, openListingStream } from '../../output/listing';
import { printPages } from '../print-pages';

/** `pets list --all`: the animals of every page (output/listing.ts), continued by `--starting-token` after a stop. */
export async function listAllRun(flags: ListOptions, ctx: Context): Promise<void> {
  const { http } = await ctx.api();
  const { output, query } = ctx.globals;
  // The largest page the specification allows unless --limit says otherwise: fewer requests against the plan's quota.
  const params = { limit: flags.limit ?? LIMIT_MAX, status: flags.status };
  const from = flags.startingToken === undefined ? firstPageUrl(http, params) : startingUrl(flags.startingToken, flags, http);
  const options = renderOptions(ctx);
  if (options.tty) await loadTable();
  const command = { ...ctx.globals, limit: flags.limit, status: flags.status };
  await printPages(ctx, {
    pages: (walk) => petPages(http, params, { ...walk, from }),
    from,
    stream: () => openListingStream(output, options, (chunk) => void ctx.io.stdout.write(chunk)),
    noun: 'animal',
    outputWaits: output === 'table' && options.tty,
    // Without the origin, always the base URL's (petPages follows no other): the built-in sandbox listens on another port each run.
    continueWith: (pageUrl) => continueCommand(command, pathOf(pageUrl)),
    onPage: (page) => {
      if (!page.next && page.body.length >= params.limit) {
        ctx.notice(`petctl: page ${page.number} is full but came without a Link rel="next"; the server may hold more animals than were listed`);
      }
    },
    ...(output === 'table' && query === undefined ? { noneFound: 'No animals found.' } : {}),
  });
}

/** --starting-token: the next-page link a stopped listing printed, where the key may go, with that listing's filters. */
function startingUrl(token: string, params: ListPetsParams, http: HttpClient): string {
  const base = new URL(http.buildUrl('/pets'));
  const origin = token.startsWith('/') && !token.startsWith('//') ? base.origin : undefined;
  if (!URL.canParse(token, origin)) throw new UsageError(`--starting-token must be the link a stopped \`pets list --all\` printed, not "${token}"`);
  const url = new URL(token, origin);
  if (url.origin !== base.origin) {
    throw new UsageError(`--starting-token leads to ${url.origin}, not to the base URL's origin (${base.origin}); the API key goes only there`);
  }
  refuseUserInfo(url, '--starting-token');
  for (const [name, given] of [['limit', params.limit], ['status', params.status]] as const) {
    const named = url.searchParams.get(name);
    if (given !== undefined && named !== null && named !== String(given)) {
      throw new UsageError(`--starting-token continues a listing with ${name}=${named}, not --${name} ${String(given)}`, `leave out --${name}, or give --${name} ${named}`);
    }
  }
  return url.toString();
}
