import { InvalidResponseError } from '../../errors';
import { LosslessNumber } from 'lossless-json';
import { parseJson } from '../../schemas/json';
import type { HttpClient } from '../client';
import type { ApiRequest, ApiResponse, RequestHooks } from '../request';
import { type LinkedPage, linkedPages } from './pages';

/**
 * `petctl api --paginate`: the request petctl api built (a GET), then every page its
 * answers link to as rel="next", by the rules of every walk (pages.ts). Each page must
 * be a JSON array; its items are handed out int64-exact (lossless-json).
 */

export type RawPage = LinkedPage<unknown[]>;

export function rawPages(http: HttpClient, first: ApiRequest & { url: string }, hooks?: RequestHooks): AsyncGenerator<RawPage> {
  // The first request's -H headers go with every page; each next link carries its own query.
  const request = (url: string): ApiRequest => ({ ...first, url, path: new URL(url).pathname, ...(hooks ? { hooks } : {}) });
  return linkedPages(http, first.url, request, pageItems);
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
