import type { Reply } from './scripted-server';

/** Scripted pages for `pets list --all` and `api --paginate`: animals by id, linked as the sandbox links them. */

/** A page of animals named `Pet <id>`, ids written as given (an int64 above 2^53 stays exact). */
export function petsPage(ids: Array<number | string>): string {
  return `[${ids.map((id) => `{"id":${id},"name":"Pet ${id}","categoryId":1,"status":"available"}`).join(',')}]`;
}

/** A 200 with `body`, and a Link rel="next" to `next` when given. */
export function linkedPage(body: string | object, next?: string, headers: Record<string, string> = {}): Reply {
  return { status: 200, body, headers: next === undefined ? headers : { ...headers, Link: `<${next}>; rel="next"` } };
}

/** A 429 whose Retry-After (3 s) is past a --max-wait of 1 s: a walk stops on it. */
export const refusedPastMaxWait: Reply = {
  status: 429,
  headers: { 'Retry-After': '3' },
  body: { code: 'rate_limited', message: 'slow down', status: 429 },
};
