import LinkHeader from 'http-link-header';
import { LosslessNumber } from 'lossless-json';
import { InvalidResponseError } from '../../errors';
import { Pets } from '../../schemas/pet';
import { parseJson } from '../../schemas/json';
import { parseSuccessBody } from '../answer';
import type { HttpClient } from '../client';
import { type ApiRequest, type ApiResponse, type RequestHooks, isSameOrigin } from '../request';
import { type ListPetsParams, validated } from './pets';

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

export interface WalkOptions {
  hooks?: RequestHooks;
  /** Send each next page's request as soon as its page's head is in (pages come one round trip apart); not for a walk that may `break`. */
  ahead?: boolean;
}

export interface LinkedPage<T> {
  number: number;
  body: T;
  /** The walk ends with exit 7 after this page if it is unsafe to request. */
  next?: string;
}

export function firstPageUrl(http: HttpClient, params: ListPetsParams): string {
  return http.buildUrl('/pets', { limit: params.limit, status: params.status });
}

/** The pages of animals from `from` (`--starting-token`), or from the first page of `params`. */
export function petPages(http: HttpClient, params: ListPetsParams, walk: WalkOptions & { from?: string } = {}): AsyncGenerator<LinkedPage<Pets>> {
  // Kept as text by the send loop: parsed here, once the next page's request is on its way.
  const request = (url: string, hooks?: RequestHooks): ApiRequest => ({ method: 'GET', path: '/pets', url, rawResponse: true, hooks });
  const read = (response: ApiResponse, url: string) => validated(Pets, { ...response, body: parseSuccessBody(response, 'GET', url) }, `GET ${new URL(url).pathname}`);
  return linkedPages(http, walk.from ?? firstPageUrl(http, params), request, read, walk);
}

/** `petctl api --paginate`: the GET petctl api built, then its next pages, each a JSON array whose items come int64-exact. */
export function rawPages(http: HttpClient, first: ApiRequest & { url: string }, walk: WalkOptions = {}): AsyncGenerator<LinkedPage<unknown[]>> {
  // The first request's -H headers go with every page; each next link carries its own query.
  const request = (url: string, hooks?: RequestHooks): ApiRequest => ({ ...first, url, path: new URL(url).pathname, hooks });
  return linkedPages(http, first.url, request, pageItems, walk);
}

/** Every page linked as rel="next" (RFC 8288, as gh api --paginate follows), each through the rate-limit gate, until an
 * answer has none. A next link on another origin (the key goes with it) or back to a page already fetched ends the walk
 * with exit 7, after its page. */
async function* linkedPages<T>(
  http: HttpClient,
  first: string,
  request: (url: string, hooks?: RequestHooks) => ApiRequest,
  read: (response: ApiResponse, url: string, number: number) => T,
  walk: WalkOptions,
): AsyncGenerator<LinkedPage<T>> {
  const visited = new Set<string>();
  /** The page the walk waits for: its 2xx head sends the next page's request ahead (walk.ahead). */
  let awaited: string | undefined;
  let ahead: (Ahead & { url: string }) | undefined;
  const hooksFor = (url: string): RequestHooks | undefined => {
    if (!walk.ahead) return walk.hooks;
    const onHead = (head: Pick<ApiResponse, 'status' | 'header'>) => {
      if (url !== awaited || head.status < 200 || head.status >= 300) return;
      const next = followable(head.header('link'), url, visited);
      if (next !== undefined && ahead?.url !== next) goAhead(next);
    };
    return { ...walk.hooks, onHead };
  };
  const goAhead = (next: string) => (ahead = { url: next, ...sendAhead(http, request(next, hooksFor(next))) });
  let url: string | undefined = first;
  // Through the core's gate like any request: a page that leaves no budget makes the next wait for the reset.
  let sending = http.send(request(first, hooksFor(first)));
  for (let number = 1; url !== undefined; number++) {
    visited.add(url);
    awaited = url;
    const response = await sending;
    awaited = undefined;
    const next = nextLink(response.header('link'), url);
    const refused = next === undefined ? undefined : refusal(next, url, number, visited, response.status);
    // The next page's request goes before this page is read and printed: its head sent it, or it goes now.
    if (walk.ahead && next !== undefined && refused === undefined && ahead?.url !== next) goAhead(next);
    const sentAhead = next !== undefined && ahead?.url === next ? ahead : undefined;
    await sentAhead?.going;
    const body = read(response, url, number);
    // The page itself is good: it is handed out before a bad link to the next one ends the walk.
    yield { number, body, ...(next === undefined ? {} : { next }) };
    sentAhead?.handedOut();
    if (refused) throw refused;
    url = next;
    if (url !== undefined) sending = sentAhead?.sending ?? http.send(request(url, hooksFor(url)));
  }
}

/** The next link the walk may follow, else undefined (the walk says why once the page is in). */
function followable(linkHeader: string | undefined, url: string, visited: ReadonlySet<string>): string | undefined {
  try {
    const next = nextLink(linkHeader, url);
    return next !== undefined && refusal(next, url, 0, visited, 200) === undefined ? next : undefined;
  } catch {
    return undefined;
  }
}

/** Why a next link is not followed: on another origin (the key would go with it), or back to a page already fetched (a loop). */
function refusal(next: string, url: string, number: number, visited: ReadonlySet<string>, status: number): InvalidResponseError | undefined {
  if (!isSameOrigin(next, url)) {
    return new InvalidResponseError(`page ${number}'s next link points to another origin (${new URL(next).origin}); not followed, so the API key stays with ${new URL(url).origin}`, status);
  }
  if (visited.has(next)) return new InvalidResponseError(`page ${number}'s next link leads back to a page already fetched (${pathOf(next)}); not followed`, status);
  return undefined;
}

/** A request sent ahead: `going` resolves once it is on the wire, waits or has ended; its waits start once `handedOut` is called. */
interface Ahead {
  sending: Promise<ApiResponse>;
  going: Promise<void>;
  handedOut: () => void;
}

/** The next page's request, sent while the page before is read; its waits (whose countdown counts the pages) start once that page is handed out. */
function sendAhead(http: HttpClient, next: ApiRequest): Ahead {
  let handedOut = () => {};
  const out = new Promise<void>((resolve) => (handedOut = resolve));
  let gone = () => {};
  const going = new Promise<void>((resolve) => (gone = resolve));
  const wait = next.hooks?.wait;
  // undici writes a request dispatched meanwhile on the event loop's next turn: the page before is read and printed after that.
  const hooks: RequestHooks = { ...next.hooks, onDispatch: () => setImmediate(gone) };
  if (wait) {
    hooks.wait = async (ms, why) => {
      gone();
      await out;
      return wait(ms, why);
    };
  }
  const sending = http.send({ ...next, hooks });
  // Also the rejection's handler until the walk awaits it, after the page before: a stop meanwhile leaves it unread.
  sending.then(gone, gone);
  return { sending, going, handedOut };
}

/** A link without its origin: how a refusal names a page, and the token a stopped `pets list --all` prints. */
export function pathOf(url: string): string {
  const { pathname, search } = new URL(url);
  return pathname + search;
}

/** A page's items, or the error that names the page: the walk cannot tell where its items would be. */
function pageItems(response: ApiResponse, url: string, number: number): unknown[] {
  let value: unknown;
  try {
    value = response.text.trim() === '' ? undefined : parseJson(response.text);
  } catch {
    throw new InvalidResponseError(`page ${number} (GET ${url}) is not JSON; --paginate needs every page to be a JSON array`, response.status);
  }
  if (Array.isArray(value)) return value;
  throw new InvalidResponseError(`page ${number} (GET ${url}) is ${kindOf(value)}, not a JSON array; --paginate needs every page to be one`, response.status);
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'empty';
  if (value === null) return 'null';
  if (typeof value === 'string') return 'a JSON string';
  if (typeof value === 'boolean') return 'a JSON boolean';
  // Numbers come as number, bigint (above 2^53) or a LosslessNumber object (parseJson).
  return typeof value === 'object' && !(value instanceof LosslessNumber) ? 'a JSON object' : 'a JSON number';
}
