import type { ServerResponse } from 'node:http';
import type { RecordedRequest } from './scripted-server';

interface CreatorOptions {
  /** Names answered 400. */
  reject?: (name: string) => boolean;
  firstId?: number;
  /** GET /pets lists `existing` and all created, in id order and paged as the sandbox pages; without it, a 404. */
  list?: { existing?: string[]; pageSize?: number; noLinks?: boolean };
  /** Names whose animal is created and whose answer is lost (dropped), `together` at once: requests in flight lose theirs. */
  lose?: { names: (name: string) => boolean; together?: number };
}

/** `pets`: every animal held, as JSON text (int64 digits as sent). */
type Creator = ((request: RecordedRequest, res: ServerResponse) => void) & { readonly pets: string[] };

/** POST /pets answered as the service does: 201, a fresh id, and the X-RateLimit-* headers of a generous window. */
export function creator(options: CreatorOptions = {}): Creator {
  let next = options.firstId ?? 100;
  let remaining = 1000;
  const reset = Math.ceil(Date.now() / 1000) + 120;
  const pets: Array<{ id: number; text: string }> = (options.list?.existing ?? []).map((text) => ({ id: (JSON.parse(text) as { id: number }).id, text }));
  const held: ServerResponse[] = [];
  const handle = (request: RecordedRequest, res: ServerResponse) => {
    remaining -= 1;
    res.setHeader('x-ratelimit-limit', '1000');
    res.setHeader('x-ratelimit-remaining', String(remaining));
    res.setHeader('x-ratelimit-reset', String(reset));
    if (request.method === 'GET' && request.path.endsWith('/pets') && options.list) return listPage(request, res, options.list);
    if (request.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'not_found', message: 'no', status: 404 }));
      return;
    }
    // The body is re-emitted digit for digit: an int64 categoryId must come back as sent.
    const body = request.body;
    const name = (JSON.parse(body) as { name: string }).name;
    if (options.reject?.(name)) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'invalid_category', message: `no category for ${name}`, status: 400, field: 'categoryId' }));
      return;
    }
    const id = next++;
    const text = `{"id":${id},${body.slice(1)}`;
    pets.push({ id, text });
    if (options.lose?.names(name)) {
      held.push(res);
      if (held.length >= (options.lose.together ?? 1)) for (const lost of held.splice(0)) lost.socket?.destroy();
      return;
    }
    res.writeHead(201, { 'content-type': 'application/json' }).end(text);
  };
  const listPage = (request: RecordedRequest, res: ServerResponse, list: NonNullable<CreatorOptions['list']>) => {
    const limit = Math.min(Number(request.query.limit ?? 20), list.pageSize ?? 100);
    const after = Number(request.query.after ?? -Infinity);
    const status = request.query.status;
    const matching = pets
      .filter((pet) => pet.id > after && (status === undefined || (JSON.parse(pet.text) as { status?: string }).status === status))
      .sort((a, b) => a.id - b.id);
    const page = matching.slice(0, limit);
    if (matching.length > limit && !list.noLinks) {
      const query = `limit=${request.query.limit ?? 20}&after=${page.at(-1)!.id}${status === undefined ? '' : `&status=${status}`}`;
      res.setHeader('link', `</v1/pets?${query}>; rel="next"`);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(`[${page.map((pet) => pet.text).join(',')}]`);
  };
  // A getter (Object.assign would copy its value once).
  return Object.defineProperty(handle, 'pets', { get: () => pets.map((pet) => pet.text) }) as Creator;
}
