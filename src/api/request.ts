import { UsageError } from '../errors';
import type { Answer } from './answer';
import type { RateHeaders } from './limits/headers';

export interface ApiRequest {
  /** Any method (`petctl api -X PATCH`); only GET is retried after anything but a 429. */
  method: string;
  /** Relative to the base URL, e.g. /pets */
  path: string;
  /** An absolute URL instead of `path` and `query` (a next link, `petctl api https://…`): only on the base URL's origin. */
  url?: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A body sent byte for byte instead of `body` (`petctl api --input`); content-type defaults to JSON. */
  rawBody?: string | Buffer;
  /** Extra request headers (`petctl api -H`); they cannot replace Authorization or User-Agent. */
  headers?: Record<string, string>;
  /** Keep the answer's text as it came, without parsing it as JSON (`petctl api` prints non-JSON bodies too). */
  rawResponse?: boolean;
  hooks?: RequestHooks;
  /** A GET only: serve a cached 2xx answer up to this old (ms) without sending, and keep this one that long. */
  cacheForMs?: number;
  /** With cacheForMs: whether a 2xx answer is one to serve again (an endpoint keeps only a body its schema accepts). */
  cacheIf?: (response: ApiResponse) => boolean;
}

export interface RequestHooks {
  /** Awaited on every attempt once the gate lets it go; the gate is asked again after it (a 429 may have come meanwhile). */
  beforeSend?: () => void | Promise<void>;
  /** As each attempt goes to the wire (a listing reads its page meanwhile). */
  onDispatch?: () => void;
  /** Each attempt's status and headers, before its body and before its limits are stored. */
  onHead?: (head: Pick<Answer, 'status' | 'header'>) => void;
  /** Every HTTP answer whole, errors and 429s included. */
  onAnswer?: (answer: Answer) => void;
  /** Replaces the session's wait (its countdown line) for this request's waits; must reject on Ctrl-C. */
  wait?: (ms: number, why: string) => Promise<void>;
  /** A bulk import's or a listing's request: the minute window is its pace, not a wait --max-wait bounds (waits.ts). */
  paced?: boolean;
  /** Requests of every window left unused for other commands on the key (`pets add --reserve`). */
  reserve?: number;
}

/** A 2xx answer: its body parsed as JSON (unless rawResponse). */
export interface ApiResponse extends Answer {
  url: string;
  body: unknown;
  rate: RateHeaders;
}

/** The one same-origin rule: the API key goes only to the base URL's origin; each caller says what a refusal means. */
export function isSameOrigin(url: string | URL, baseUrl: string | URL): boolean {
  return new URL(url).origin === new URL(baseUrl).origin;
}

/** A URL given for a request (petctl api's, --starting-token) names no user or password, as a base URL names none: -v's
 * trace would show the password, and petctl sends the key itself. */
export function refuseUserInfo(url: URL, label: string, hint?: string): void {
  if (url.username !== '' || url.password !== '') throw new UsageError(`${label} must not contain a user name or password`, hint);
}

/** Where a request goes: its path and query under the base URL, or its own URL when that is on the base URL's origin. */
export function requestUrl(baseUrl: string, request: Pick<ApiRequest, 'path' | 'query' | 'url'>): string {
  if (request.url !== undefined) {
    if (!isSameOrigin(request.url, baseUrl)) throw new UsageError(`refusing to send the API key to ${new URL(request.url).origin}: not the base URL's origin`);
    return new URL(request.url).toString();
  }
  const url = new URL(baseUrl + request.path);
  for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
  return url.toString();
}
