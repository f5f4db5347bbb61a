import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { SLACK_MS, expectCleanError, newApiKey, setupE2e } from '../helpers/cli';
import { namedTime } from '../helpers/local-time';
import { PET, json } from '../helpers/scripted-server';

/**
 * Rate limits as a user meets them: the notice, the exit code, the next process. Time only from below. A 429 waited
 * out and retried: test/api/client.test.ts, and across processes test/spec/limits.test.ts; a window used up
 * (X-RateLimit-Remaining: 0): test/api/waits-table.test.ts.
 */

const RATE_LIMITED = { code: 'rate_limited', message: 'Too many requests', status: 429 };

it('Retry-After 120 with the default --max-wait 60: exit 5 at once, naming when; the next process sends nothing; another key or base URL is sent; a banned key sends nothing', async (t) => {
  const { server, key, configDir, petctl } = await setupE2e(t);
  server.reply(json(429, RATE_LIMITED, { 'retry-after': '120' }));

  const result = await petctl(['pets', 'list']);

  expectCleanError(result, 5);
  expect(result.stderr).toMatch(/^error: rate limited: Too many requests\. Try again at [\d: -]+, in 2m00s \(rate_limited, HTTP 429\)$/m);
  // Local time to the second: the named second may start up to 1 s before the moment itself.
  expect(namedTime(result.stderr)).toBeGreaterThanOrEqual(server.requests[0]!.at + 120_000 - 1000 - SLACK_MS);
  expect(result.stderr).toMatch(/^hint: .*--max-wait/m);
  const state = fs.readFileSync(path.join(configDir, 'state.json'), 'utf8');
  expect(state).toMatch(/"reason": "rate_limited"/);
  expect(state).not.toContain(key);

  const again = await petctl(['pets', 'list']);
  expectCleanError(again, 5);
  // 2m00s, or 119s and less when this process started more than a second later (a loaded machine).
  expect(again.stderr).toMatch(/^error: rate limited \(HTTP 429, Retry-After\); nothing sent\. Try again at [\d: -]+, in (\d+m\d+s|1[01]\ds) \(rate_limited\)$/m);
  expect(namedTime(again.stderr)).toBeGreaterThanOrEqual(server.requests[0]!.at + 120_000 - 1000 - SLACK_MS);
  expect(server.requests).toHaveLength(1);

  server.reply(json(429, { code: 'key_banned', message: 'API key banned for 10 minutes', status: 429 }, { 'retry-after': '600' }), json(200, [PET]));
  const otherKey = newApiKey();
  const other = (args: string[]) => petctl(args, { env: { PETCTL_API_KEY: otherKey }, secrets: [otherKey] });
  const banned = await other(['pets', 'list']);
  expectCleanError(banned, 5);
  expect(banned.stderr).toMatch(/^error: the API key is banned until [\d: -]+ \(in 10m00s\); petctl sends nothing before then \(key_banned, HTTP 429\)$/m);
  const stillBanned = await other(['pets', 'add', '--name', 'Rex', '--category-id', '1']);
  expectCleanError(stillBanned, 5);
  expect(stillBanned.stderr).toMatch(/the API key is banned until [\d: -]+ \(in \d+m\d\ds\); petctl sends nothing before then \(key_banned\)/);
  expect((await petctl(['--base-url', `http://localhost:${server.port}/v1`, 'pets', 'list'])).code).toBe(0);
  expect(server.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${key}`, `Bearer ${otherKey}`, `Bearer ${key}`]);
  server.verify();
});
