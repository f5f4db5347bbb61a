import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { setupE2e } from '../helpers/cli';
import { type RecordedRequest, rateLimitHeaders } from '../helpers/scripted-server';

/**
 * The claim before the wire: once the window's remaining count is known
 * (here from one command before), every command claims one of it from the
 * state file before it sends, so 60 commands started at once against a
 * window with 20 left send 20; the others wait for the window, or stop
 * (exit 5) when that is longer than --max-wait. The service refuses past its
 * limit and bans a key after 5 refused requests in a window, as a real one may.
 */

const WINDOW_MS = 60_000;
const LIMIT = 21;
const BAN_AFTER = 5;
const COMMANDS = 60;

function limitedService() {
  let windowEnd: number | undefined;
  let used = 0;
  let refused = 0;
  const reply = (request: RecordedRequest, res: ServerResponse) => {
    windowEnd ??= request.at + WINDOW_MS;
    used += 1;
    const headers = rateLimitHeaders(LIMIT, used, windowEnd);
    if (used > LIMIT) {
      refused += 1;
      const code = refused >= BAN_AFTER ? 'key_banned' : 'rate_limited';
      res.writeHead(429, { ...headers, 'retry-after': String(Math.ceil((windowEnd - Date.now()) / 1000)) }).end(JSON.stringify({ code, message: 'Too many requests', status: 429 }));
      return;
    }
    res.writeHead(200, headers).end(JSON.stringify([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]));
  };
  return { reply, refused: () => refused, banned: () => refused >= BAN_AFTER };
}

describe('the claim before the wire', () => {
  it('60 `pets list` started at once with 20 left in the window: 20 reach the service, the rest stop before sending, no 429, no ban', async (t) => {
    const service = limitedService();
    const { server, petctl } = await setupE2e(t, service.reply);
    const first = await petctl(['pets', 'list']);
    expect(first.code, first.stderr).toBe(0);

    const results = await Promise.all(Array.from({ length: COMMANDS }, () => petctl(['--max-wait', '2', 'pets', 'list'], { timeoutMs: 110_000 })));

    expect(server.requests.length - 1).toBeLessThanOrEqual(LIMIT - 1);
    expect(service.refused()).toBe(0);
    expect(service.banned()).toBe(false);
    const sent = results.filter((result) => result.code === 0);
    const stopped = results.filter((result) => result.code === 5);
    expect(sent.length + stopped.length).toBe(COMMANDS);
    expect(sent).toHaveLength(LIMIT - 1);
    for (const result of stopped) {
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/nothing sent\. Try again .*\(rate_limited\)$/m);
    }
  }, 120_000);
});
