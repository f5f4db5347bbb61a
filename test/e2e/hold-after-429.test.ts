import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { setupE2e } from '../helpers/cli';
import type { RecordedRequest } from '../helpers/scripted-server';
import { rowsFile } from '../helpers/import-run';

/**
 * 25 rows, default flags, into a service that sends no rate-limit headers, allows 10 requests per 10-s
 * window and bans after 10 refused in one. The worded limits: test/api/retry.test.ts, test/api/waits.test.ts.
 */

const WINDOW_MS = 10_000;
const LIMIT = 10;
const BAN_AFTER = 10;
const ROWS = 25;
/** `pets add --file`'s default. */
const CONCURRENCY = 4;

/** The service: fixed windows from the first request; refused requests counted per window; a ban after BAN_AFTER of them. */
function limitedService() {
  let firstAt: number | undefined;
  const used = new Map<number, number>();
  const refused = new Map<number, number>();
  let bannedIn: number | undefined;
  let id = 1;
  const created = new Set<string>();
  const reply = (request: RecordedRequest, res: ServerResponse) => {
    firstAt ??= request.at;
    const window = Math.floor((request.at - firstAt) / WINDOW_MS);
    const count = (used.get(window) ?? 0) + 1;
    used.set(window, count);
    const headers = { 'content-type': 'application/json' };
    if (bannedIn !== undefined || count > LIMIT) {
      const refusedNow = (refused.get(window) ?? 0) + 1;
      refused.set(window, refusedNow);
      if (refusedNow >= BAN_AFTER) bannedIn ??= window;
      const code = bannedIn === undefined ? 'rate_limited' : 'key_banned';
      res.writeHead(429, headers).end(JSON.stringify({ code, message: 'Too many requests', status: 429 }));
      return;
    }
    created.add((JSON.parse(request.body) as { name: string }).name);
    res.writeHead(201, headers).end(`{"id":${id++},${request.body.slice(1)}`);
  };
  return { reply, refused, created, banned: () => bannedIn !== undefined };
}

describe.concurrent('a 429 without a usable time holds the whole import; it finishes without a ban', () => {
  it(`no headers at all: 25 rows created, no ban, at most 2 refused requests per 10-s window after the first refusal's`, async (t) => {
    const service = limitedService();
    const { server, configDir, petctl } = await setupE2e(t, service.reply);
    const file = rowsFile(configDir, 'rows.ndjson', ROWS, 'row-');

    const result = await petctl(['pets', 'add', '--file', file, '-o', 'ndjson'], { timeoutMs: 90_000 });

    expect(service.banned()).toBe(false);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^created 25, skipped 0, /m);
    expect(service.created.size).toBe(ROWS);
    // Before the first refusal nothing tells the import of a limit, and 4 requests (--concurrency) may be on the wire:
    // that window sees them refused, and the probe after the first hold; every later window at most 2.
    const first = Math.min(...service.refused.keys());
    for (const [window, count] of service.refused) expect(count, `refused requests in window ${window}`).toBeLessThanOrEqual(window === first ? CONCURRENCY + 1 : 2);
    // Without a budget on its answers the import meets the limit; the hold is what keeps it from a ban.
    expect([...service.refused.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(server.requests.filter((request) => request.method === 'POST').length).toBeLessThanOrEqual(ROWS + 2 * 4);
  }, 100_000);
});
