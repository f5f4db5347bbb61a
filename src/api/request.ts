import { UsageError } from '../errors';
import type { Answer } from './answer';
import type { RateHeaders } from './limits/headers';

/** What a request is and what comes back, for the send loop (client.ts), the endpoints and the commands that hook into a send. */

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
  /** Per-request hooks; bulk import uses them to journal and to show waits in its progress bar. */
  hooks?: RequestHooks;
  /** A GET only: serve a cached 2xx answer up to this old (ms) without sending, and keep this one that long. */
  cacheForMs?: number;
  /** With cacheForMs: whether a 2xx answer is one to serve again (an endpoint keeps only a body its schema accepts). */
  cacheIf?: (response: ApiResponse) => boolean;
}

export interface RequestHooks {
  /**
   * Awaited on every attempt once the gate lets the request go, just before the wire (one still in the gate was
   * never sent). The gate is asked again after it (a 429 may have come meanwhile): it may still wait, and come back.
   */
  beforeSend?: () => void | Promise<void>;
  /** Called as each attempt goes to the wire, after beforeSend and the gate's last look (a listing reads its page meanwhile). */
  onDispatch?: () => void;
  /** Sees each attempt's status and headers as soon as they are in: before its body, and before its limits are stored (this process's own hold knows them already). */
  onHead?: (head: Pick<Answer, 'status' | 'header'>) => void;
  /** Sees every HTTP answer whole, errors and 429s included (`api -i`, getPet's Sunset, bulk import's counts). */
  onAnswer?: (answer: Answer) => void;
  /** Replaces the session's wait (its countdown line) for this request's waits; must reject on Ctrl-C. */
  wait?: (ms: number, why: string) => Promise<void>;
  /** A bulk import's or a listing's request: the minute window is its pace, not a wait --max-wait bounds (waits.ts). */
  paced?: boolean;
  /** Requests of every window left unused for other commands on the key (`pets add --reserve`). */
  reserve?: number;
}

/** A 2xx answer: its body parsed as JSON (unless rawResponse), and the limits its head reported. */
export interface ApiResponse extends Answer {
  url: string;
  body: unknown;
  rate: RateHeaders;
}

/**
 * The one same-origin rule: the API key goes only to the base URL's origin (scheme, host, port), never where a link or
 * an argument points. Each caller says what a refusal means (a usage error for `api <url>`, an invalid next link).
 */
export function isSameOrigin(url: string | URL, baseUrl: string | URL): boolean {
  return new URL(url).origin === new URL(baseUrl).origin;
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
