import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A rate-limited Pet Adoption Service for crowd tests: one key, fixed windows
 * at the real length (60 s), the Free plan's 60 requests each. Past the limit
 * it answers 429 `rate_limited` with Retry-After; after `banAfter` refused
 * requests in one window it bans the key, and every request until the ban
 * ends gets 429 `key_banned`, as a real service may (the specification's
 * Limits, point 4). It counts on its own side what a crowd of petctl
 * processes did to it.
 *
 * It may start with its current window used up and ending at `windowEndsAt`,
 * so a crowd meets the reopen at a real minute's boundary. Plain Node (no
 * vitest): bench/crowd.mjs bundles it too.
 */

export interface LimitedServiceOptions {
  /** Requests per window (Free: 60). */
  limit?: number;
  windowMs?: number;
  /** Refused requests in one window that get the key banned. */
  banAfter?: number;
  banMs?: number;
  /** The current window is used up and ends then (ms since the epoch, a whole second); absent: the first request opens one. */
  windowEndsAt?: number;
  /**
   * How a 429 words its time. `agreeing` (default): Retry-After until the window's end, as
   * X-RateLimit-Reset says. `short-retry-after`: Retry-After 1 while the Reset still names the
   * window's end (the headers disagree). `no-time`: neither Retry-After nor any X-RateLimit-*.
   */
  refusal?: 'agreeing' | 'short-retry-after' | 'no-time';
}

export interface ServiceCounts {
  requests: number;
  /** 2xx answers. */
  ok: number;
  /** 429 answers of any code (rate_limited and key_banned). */
  refused: number;
  /** 429 answers with code key_banned. */
  bannedAnswers: number;
  /** How many times the key was banned. */
  bans: number;
  /** 2xx answers per window, by the window's end (ms since the epoch). */
  okPerWindow: Map<number, number>;
  /** When each 2xx was answered (ms since the epoch). */
  okTimes: number[];
}

export interface LimitedService {
  baseUrl: string;
  limit: number;
  windowMs: number;
  counts: ServiceCounts;
  close(): Promise<void>;
}

/** The one animal GET /v1/pets lists. */
export const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };

export async function startLimitedService(options: LimitedServiceOptions = {}): Promise<LimitedService> {
  const limit = options.limit ?? 60;
  const windowMs = options.windowMs ?? 60_000;
  const banAfter = options.banAfter ?? 10;
  const banMs = options.banMs ?? 10 * 60_000;
  const counts: ServiceCounts = { requests: 0, ok: 0, refused: 0, bannedAnswers: 0, bans: 0, okPerWindow: new Map(), okTimes: [] };
  let windowEnd = options.windowEndsAt;
  let used = windowEnd === undefined ? 0 : limit;
  let refusedInWindow = 0;
  let bannedUntil = 0;

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

  const refuse = (res: http.ServerResponse, headers: Record<string, string>, until: number, now: number, code: string) => {
    counts.refused += 1;
    const retryAfter = String(Math.max(1, Math.ceil((until - now) / 1000)));
    const message = code === 'key_banned' ? 'This API key is banned for sending past its rate limit' : 'Too many requests';
    const worded =
      options.refusal === 'no-time'
        ? { 'content-type': 'application/json' }
        : { ...headers, 'retry-after': options.refusal === 'short-retry-after' && code !== 'key_banned' ? '1' : retryAfter };
    res.writeHead(429, worded).end(JSON.stringify({ code, message, status: 429 }));
  };

  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      counts.requests += 1;
      const now = Date.now();
      const end = roll(now);
      // Node adds the Date header itself (res.sendDate).
      const headers = {
        'content-type': 'application/json',
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(Math.max(0, limit - used)),
        'x-ratelimit-reset': String(Math.ceil(end / 1000)),
      };
      if (now < bannedUntil) {
        counts.bannedAnswers += 1;
        return refuse(res, headers, bannedUntil, now, 'key_banned');
      }
      if (used >= limit) {
        refusedInWindow += 1;
        if (refusedInWindow >= banAfter) {
          counts.bans += 1;
          bannedUntil = now + banMs;
        }
        return refuse(res, headers, end, now, 'rate_limited');
      }
      used += 1;
      headers['x-ratelimit-remaining'] = String(limit - used);
      if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://service.invalid').pathname !== '/v1/pets') {
        res.writeHead(404, headers).end(JSON.stringify({ code: 'not_found', message: 'No such resource', status: 404 }));
        return;
      }
      counts.ok += 1;
      counts.okTimes.push(now);
      counts.okPerWindow.set(end, (counts.okPerWindow.get(end) ?? 0) + 1);
      res.writeHead(200, headers).end(JSON.stringify([PET]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    limit,
    windowMs,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A window end `ms` from now, on a whole second, so X-RateLimit-Reset names it exactly. */
export function windowEndIn(ms: number, now = Date.now()): number {
  return Math.ceil((now + ms) / 1000) * 1000;
}
