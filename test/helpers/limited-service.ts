import { PET, type RecordedRequest, startScriptedServer } from './scripted-server';

// One key's real-length fixed windows, 429s past the limit, a ban after BAN_AFTER (the specification's Limits, point 4),
// counting what petctl did. Plain Node: bench/crowd.mjs and bench/enterprise.mjs bundle it too.

export interface LimitedServiceOptions {
  /** Requests per window (default 60, the Free plan's). */
  limit?: number;
  /** The current window is used up and ends then (ms since the epoch, a whole second); absent: the first request opens one. */
  windowEndsAt?: number;
  /** A 429's time: Retry-After to the window's end (default), Retry-After 1 against the Reset, or neither header. */
  refusal?: 'agreeing' | 'short-retry-after' | 'no-time';
  /** Each answer this late, as from a service one round trip of that length away. */
  latencyMs?: number;
  /** GET /v1/pets pages animals 1..listed (`limit`, `after`); absent, it lists PET alone. Created ones get the ids after. */
  listed?: number;
}

/** Refused requests in one window that get the key banned, and for how long. */
const BAN_AFTER = 10;
const BAN_MS = 10 * 60_000;

export async function startLimitedService(options: LimitedServiceOptions = {}) {
  type Answer = { status: number; headers: Record<string, string>; body: string };
  const limit = options.limit ?? 60;
  const windowMs = 60_000;
  const listed = options.listed;
  const counts = {
    requests: 0,
    ok: 0,
    /** 429s of either code; bannedAnswers, those with code key_banned. */
    refused: 0,
    bannedAnswers: 0,
    bans: 0,
    /** 2xx answers per window, by the window's end (ms since the epoch). */
    okPerWindow: new Map<number, number>(),
    /** How many times each name was created. */
    created: new Map<string, number>(),
    /** The `after` of each page read, in the order read ('' for the first page). */
    pages: [] as string[],
  };
  let windowEnd = options.windowEndsAt;
  let used = windowEnd === undefined ? 0 : limit;
  let refusedInWindow = 0;
  let bannedUntil = 0;
  let nextId = (listed ?? 0) + 1;

  /** The window `now` falls in: fixed windows, each `windowMs` after the last. */
  const roll = (now: number): number => {
    if (windowEnd === undefined) windowEnd = Math.ceil((now + windowMs) / 1000) * 1000;
    while (now >= windowEnd) {
      windowEnd += windowMs;
      used = 0;
      refusedInWindow = 0;
    }
    return windowEnd;
  };

  const refuse = (headers: Record<string, string>, until: number, now: number, code: string): Answer => {
    counts.refused += 1;
    const retryAfter = String(Math.max(1, Math.ceil((until - now) / 1000)));
    const message = code === 'key_banned' ? 'This API key is banned for sending past its rate limit' : 'Too many requests';
    const worded: Record<string, string> =
      options.refusal === 'no-time'
        ? { 'content-type': 'application/json' }
        : { ...headers, 'retry-after': options.refusal === 'short-retry-after' && code !== 'key_banned' ? '1' : retryAfter };
    return { status: 429, headers: worded, body: JSON.stringify({ code, message, status: 429 }) };
  };

  const pets = ({ method, query, body }: RecordedRequest, headers: Record<string, string>): Answer => {
    if (method === 'POST') {
      const pet = JSON.parse(body) as { name: string; categoryId: number; status?: string };
      counts.created.set(pet.name, (counts.created.get(pet.name) ?? 0) + 1);
      const id = nextId++;
      return { status: 201, headers: { ...headers, location: `/v1/pets/${id}` }, body: JSON.stringify({ id, ...pet }) };
    }
    if (listed === undefined) return { status: 200, headers, body: JSON.stringify([PET]) };
    const pageSize = Number(query.limit ?? 20);
    const after = Number(query.after ?? 0);
    counts.pages.push(query.after ?? '');
    const last = Math.min(listed, after + pageSize);
    const items: string[] = [];
    for (let id = after + 1; id <= last; id += 1) items.push(`{"id":${id},"name":"Pet ${id}","categoryId":${(id % 7) + 1},"status":"available"}`);
    if (last < listed) headers.link = `</v1/pets?limit=${pageSize}&after=${last}>; rel="next"`;
    return { status: 200, headers, body: `[${items.join(',')}]` };
  };

  const answer = (request: RecordedRequest): Answer => {
    const now = request.at;
    counts.requests += 1;
    const end = roll(now);
    // Node adds the Date header itself (res.sendDate).
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, limit - used)),
      'x-ratelimit-reset': String(Math.ceil(end / 1000)),
    };
    if (now < bannedUntil) {
      counts.bannedAnswers += 1;
      return refuse(headers, bannedUntil, now, 'key_banned');
    }
    if (used >= limit) {
      refusedInWindow += 1;
      if (refusedInWindow >= BAN_AFTER) {
        counts.bans += 1;
        bannedUntil = now + BAN_MS;
      }
      return refuse(headers, end, now, 'rate_limited');
    }
    used += 1;
    headers['x-ratelimit-remaining'] = String(limit - used);
    if (request.path !== '/v1/pets' || (request.method !== 'GET' && request.method !== 'POST')) {
      return { status: 404, headers, body: JSON.stringify({ code: 'not_found', message: 'No such resource', status: 404 }) };
    }
    counts.ok += 1;
    counts.okPerWindow.set(end, (counts.okPerWindow.get(end) ?? 0) + 1);
    return pets(request, headers);
  };

  const server = await startScriptedServer((request, res) => {
    const { status, headers, body } = answer(request);
    const send = () => res.writeHead(status, headers).end(body);
    if (options.latencyMs) setTimeout(send, options.latencyMs);
    else send();
  });
  return { baseUrl: server.baseUrl, limit, windowMs, counts, close: server.close };
}

/** A window end `ms` from now, on a whole second, so X-RateLimit-Reset names it exactly. */
export function windowEndIn(ms: number, now = Date.now()): number {
  return Math.ceil((now + ms) / 1000) * 1000;
}
