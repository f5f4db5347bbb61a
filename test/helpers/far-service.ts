import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Pet Adoption Service far away: every answer leaves `latencyMs` after its
 * request arrived, as from a service one round trip of that length away. It
 * speaks the specification's POST /v1/pets (201 + the Pet, Location) and
 * GET /v1/pets with paging (`limit`, `after`, Link rel="next", as the
 * sandbox pages), under one key with a fixed window of `perMinute` requests
 * (X-RateLimit-* on every answer; past it 429 with Retry-After, and a ban
 * after `banAfter` refused requests in one window).
 *
 * It counts on its own side what petctl did: each created name, each page
 * read (its `after`, in the order read), 429s, bans, and the most requests
 * open at once. Plain Node (no vitest): bench/enterprise.mjs bundles it too.
 */

export interface FarServiceOptions {
  /** How long each answer waits (default 50 ms). */
  latencyMs?: number;
  /** The window's limit (default 60,000, an Enterprise key's). */
  perMinute?: number;
  windowMs?: number;
  /** Animals 1..listed that GET /v1/pets lists (default 0); created ones get the ids after. */
  listed?: number;
  banAfter?: number;
}

export interface FarServiceCounts {
  requests: number;
  /** 429 answers (rate_limited and key_banned). */
  refused: number;
  bans: number;
  /** How many times each name was created. */
  created: Map<string, number>;
  /** The `after` of each page read, in the order read ('' for the first page). */
  pages: string[];
  /** The most requests open at once: arrived and not yet answered. */
  maxInFlight: number;
}

export interface FarService {
  baseUrl: string;
  perMinute: number;
  counts: FarServiceCounts;
  close(): Promise<void>;
}

export async function startFarService(options: FarServiceOptions = {}): Promise<FarService> {
  const latencyMs = options.latencyMs ?? 50;
  const limit = options.perMinute ?? 60_000;
  const windowMs = options.windowMs ?? 60_000;
  const listed = options.listed ?? 0;
  const banAfter = options.banAfter ?? 10;
  const counts: FarServiceCounts = { requests: 0, refused: 0, bans: 0, created: new Map(), pages: [], maxInFlight: 0 };
  let inFlight = 0;
  let nextId = listed + 1;
  let windowEnd = 0;
  let used = 0;
  let refusedInWindow = 0;
  let bannedUntil = 0;

  const answer = (now: number, method: string, url: URL, body: string): { status: number; headers: Record<string, string>; body: string } => {
    if (now >= windowEnd) {
      windowEnd = Math.ceil((now + windowMs) / 1000) * 1000;
      used = 0;
      refusedInWindow = 0;
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, limit - used - 1)),
      'x-ratelimit-reset': String(Math.ceil(windowEnd / 1000)),
    };
    const banned = now < bannedUntil;
    if (banned || used >= limit) {
      counts.refused += 1;
      if (!banned && ++refusedInWindow >= banAfter) {
        counts.bans += 1;
        bannedUntil = now + 10 * windowMs;
      }
      const until = now < bannedUntil ? bannedUntil : windowEnd;
      headers['x-ratelimit-remaining'] = '0';
      headers['retry-after'] = String(Math.max(1, Math.ceil((until - now) / 1000)));
      const code = now < bannedUntil ? 'key_banned' : 'rate_limited';
      return { status: 429, headers, body: JSON.stringify({ code, message: 'Too many requests', status: 429 }) };
    }
    used += 1;
    if (url.pathname !== '/v1/pets') return { status: 404, headers, body: JSON.stringify({ code: 'not_found', message: 'No such resource', status: 404 }) };
    if (method === 'POST') {
      const pet = JSON.parse(body) as { name: string; categoryId: number; status?: string };
      counts.created.set(pet.name, (counts.created.get(pet.name) ?? 0) + 1);
      const id = nextId++;
      headers.location = `/v1/pets/${id}`;
      return { status: 201, headers, body: JSON.stringify({ id, ...pet }) };
    }
    const pageSize = Number(url.searchParams.get('limit') ?? 20);
    const after = Number(url.searchParams.get('after') ?? 0);
    counts.pages.push(url.searchParams.get('after') ?? '');
    const last = Math.min(listed, after + pageSize);
    const items: string[] = [];
    for (let id = after + 1; id <= last; id += 1) items.push(`{"id":${id},"name":"Pet ${id}","categoryId":${(id % 7) + 1},"status":"available"}`);
    if (last < listed) headers.link = `</v1/pets?limit=${pageSize}&after=${last}>; rel="next"`;
    return { status: 200, headers, body: `[${items.join(',')}]` };
  };

  const server = http.createServer((req, res) => {
    inFlight += 1;
    counts.maxInFlight = Math.max(counts.maxInFlight, inFlight);
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      counts.requests += 1;
      const reply = answer(Date.now(), req.method ?? 'GET', new URL(req.url ?? '/', 'http://far.invalid'), body);
      setTimeout(() => {
        inFlight -= 1;
        res.writeHead(reply.status, reply.headers).end(reply.body);
      }, latencyMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    perMinute: limit,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
