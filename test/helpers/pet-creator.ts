import type { ServerResponse } from 'node:http';
import type { RecordedRequest } from './scripted-server';

/**
 * A POST /pets answer as the service gives it: 201 with the animal and a fresh
 * id, and the X-RateLimit-* headers the specification puts on every answer
 * (a generous window); `reject` names are answered 400.
 */
export function creator(options: { reject?: (name: string) => boolean; firstId?: number } = {}): (request: RecordedRequest, res: ServerResponse) => void {
  let next = options.firstId ?? 100;
  let remaining = 1000;
  const reset = Math.ceil(Date.now() / 1000) + 120;
  return (request, res) => {
    remaining -= 1;
    res.setHeader('x-ratelimit-limit', '1000');
    res.setHeader('x-ratelimit-remaining', String(remaining));
    res.setHeader('x-ratelimit-reset', String(reset));
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
    res.writeHead(201, { 'content-type': 'application/json' }).end(`{"id":${next++},${body.slice(1)}`);
  };
}

