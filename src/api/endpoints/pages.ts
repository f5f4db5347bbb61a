import LinkHeader from 'http-link-header';
import { InvalidResponseError } from '../../errors';
import { Pets } from '../../schemas/pet';
import type { HttpClient } from '../client';
import type { ApiRequest, ApiResponse, RequestHooks } from '../request';
import { type ListPetsParams, validated } from './pets';
import { isSameOrigin } from '../same-origin';

/**
 * Every `Link: <…>; rel="next"` (RFC 8288) until an answer has none: from GET
 * /pets for `pets list --all`, from any path for `petctl api --paginate`
 * (raw-pages.ts). The specification shows no paging; this is the
 * standard way for a server to offer more (gh api --paginate follows it too).
 * Each page goes through the HTTP core, so the rate-limit gate paces them.
 */

/** One page of animals and the answer it came in. */
export interface PetPage extends Omit<LinkedPage<Pets>, 'body'> {
  pets: Pets;
}

/** The rel="next" target of a Link header, resolved against the URL of the answer that carried it. */
export function nextLink(linkHeader: string | undefined, responseUrl: string): string | undefined {
  if (linkHeader === undefined || linkHeader.trim() === '') return undefined;
  let links: ReturnType<typeof LinkHeader.parse>;
  try {
    links = LinkHeader.parse(linkHeader);
  } catch {
    throw new InvalidResponseError(`the Link header of ${responseUrl} cannot be parsed (RFC 8288)`, 200);
  }
  // rel() compares relation types case-insensitively and splits "next last", as RFC 8288 says.
  const target = links.rel('next')[0]?.uri;
  if (target === undefined) return undefined;
  try {
    return new URL(target, responseUrl).toString();
  } catch {
    throw new InvalidResponseError(`the next-page link of ${responseUrl} is not a URL`, 200);
  }
}

/** Where a walk starts, and how its requests go (a listing passes `paced`: the minute window is its pace). */
export interface WalkOptions {
  /** The first page's URL (`--starting-token`); the first page of `params` when absent. */
  from?: string;
  hooks?: RequestHooks;
}

/** The first page's URL of a listing with these filters. */
export function firstPageUrl(http: HttpClient, params: ListPetsParams): string {
  return http.buildUrl('/pets', { limit: params.limit, status: params.status });
}

/**
 * The pages, one at a time. A next link on another origin (the key would go
 * with the request) or to a page already fetched (a loop) ends the walk with
 * exit 7, without requesting it.
 */
export async function* petPages(http: HttpClient, params: ListPetsParams, walk: WalkOptions = {}): AsyncGenerator<PetPage> {
  const request = (url: string): ApiRequest => ({ method: 'GET', path: '/pets', url, ...(walk.hooks ? { hooks: walk.hooks } : {}) });
  const read = (response: ApiResponse, url: string) => validated(Pets, response, `GET ${new URL(url).pathname}`);
  for await (const { body, ...page } of linkedPages(http, walk.from ?? firstPageUrl(http, params), request, read)) yield { ...page, pets: body };
}

/** One page of any walk: what `read` made of its answer. */
export interface LinkedPage<T> {
  /** 1 for the first page. */
  number: number;
  url: string;
  body: T;
  /** The absolute URL of the next page; the walk ends with exit 7 after this page if it is unsafe to request. */
  next?: string;
  response: ApiResponse;
}

/**
 * From `first`, every page its answers link to as rel="next", each sent as
 * `request(url)` and read by `read` (which throws for a page that is not what the
 * walk expects). The rules of every walk: the next link must be on the page's
 * origin (the key goes with it) and not lead back to a page already fetched.
 */
export async function* linkedPages<T>(
  http: HttpClient,
  first: string,
  request: (url: string) => ApiRequest,
  read: (response: ApiResponse, url: string, number: number) => T,
): AsyncGenerator<LinkedPage<T>> {
  const visited = new Set<string>();
  let url: string | undefined = first;
  for (let number = 1; url !== undefined; number++) {
    visited.add(url);
    // Through the core's gate like any request: a page that leaves no budget makes the next wait for the reset.
    const response: ApiResponse = await http.send(request(url));
    const body = read(response, url, number);
    const next = nextLink(response.header('link'), url);
    // The page itself is good: it is handed out before a bad link to the next one ends the walk.
    yield { number, url, body, response, ...(next === undefined ? {} : { next }) };
    if (next !== undefined && !isSameOrigin(next, url)) {
      throw new InvalidResponseError(
        `page ${number}'s next link points to another origin (${new URL(next).origin}); not followed, so the API key stays with ${new URL(url).origin}`,
        response.status,
      );
    }
    if (next !== undefined && visited.has(next)) {
      throw new InvalidResponseError(`page ${number}'s next link leads back to a page already fetched (${pathOf(next)}); not followed`, response.status);
    }
    url = next;
  }
}

function pathOf(url: string): string {
  const { pathname, search } = new URL(url);
  return pathname + search;
}
