import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, expectCleanError, expectPetctlHeaders, newApiKey, setupE2e } from '../helpers/cli';
import { namedTime } from '../helpers/local-time';
import { type RecordedRequest, json } from '../helpers/scripted-server';

/**
 * The rate-limit side of the HTTP core, end to end; timing only as lower bounds. How each header
 * is read is tested at its seam (test/api/retry.test.ts, waits.test.ts, waits-table.test.ts).
 */

/** Timers and the two processes' clocks may disagree by a few ms. */
const SLACK_MS = 50;

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const PET_LINE = '1\tRex\t1\tavailable\n';
const RATE_LIMITED = { code: 'rate_limited', message: 'Too many requests', status: 429 };

function notices(result: CliResult): string[] {
  return result.stderr.split('\n').filter((line) => line.startsWith('petctl: '));
}

function stateText(configDir: string): string {
  const file = path.join(configDir, 'state.json');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
}

/** The second of `X-RateLimit-Reset` `seconds` from now, as a server would send it. */
function resetIn(seconds: number, nowMs = Date.now()): number {
  return Math.ceil(nowMs / 1000) + seconds;
}

describe.concurrent('429 with Retry-After', () => {
  it('waits Retry-After (delta-seconds) and retries: exit 0, two identical requests', async (t) => {
    const { server, key, petctl } = await setupE2e(t);
    server.reply(json(429, RATE_LIMITED, { 'retry-after': '1' }), json(200, [PET]));

    const result = await petctl(['pets', 'list', '--limit', '5']);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(PET_LINE);
    // Off a TTY the wait is announced in one line.
    expect(notices(result)).toEqual(['petctl: retry 1/4 in 1s: HTTP 429']);
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests as [RecordedRequest, RecordedRequest];
    expect(second.at - first.at).toBeGreaterThanOrEqual(1000 - SLACK_MS);
    for (const request of server.requests) {
      expect(request.method).toBe('GET');
      expect(request.path).toBe('/v1/pets');
      expect(request.query).toEqual({ limit: '5' });
      expectPetctlHeaders(request, key);
    }

    // With --quiet it waits just the same but says nothing.
    server.reply(json(429, RATE_LIMITED, { 'retry-after': '1' }), json(200, [PET]));
    const quiet = await petctl(['--quiet', 'pets', 'list']);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(server.requests[3]!.at - server.requests[2]!.at).toBeGreaterThanOrEqual(1000 - SLACK_MS);
    server.verify();
  });
});

describe.concurrent('429 that cannot be waited out', () => {
  it('Retry-After 120 with the default --max-wait 60: exit 5 at once, naming when to try again; the next process sends nothing', async (t) => {
    const { server, key, configDir, petctl } = await setupE2e(t);
    server.reply(json(429, RATE_LIMITED, { 'retry-after': '120' }));

    const result = await petctl(['pets', 'list']);

    expect(result.code).toBe(5);
    expectCleanError(result);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: rate limited: Too many requests\. Try again at [\d: -]+, in 2m00s \(rate_limited, HTTP 429\)$/m);
    // Local time to the second: the named second may start up to 1 s before the moment itself.
    expect(namedTime(result.stderr)).toBeGreaterThanOrEqual(server.requests[0]!.at + 120_000 - 1000 - SLACK_MS);
    expect(result.stderr).toMatch(/^hint: .*--max-wait/m);
    // The state file remembers the block, never the key.
    expect(stateText(configDir)).toMatch(/"reason": "rate_limited"/);
    expect(stateText(configDir)).not.toContain(key);

    // A second petctl process, same config dir, base URL and key: nothing is sent.
    const again = await petctl(['pets', 'list']);
    expect(again.code).toBe(5);
    expectCleanError(again);
    expect(server.requests).toHaveLength(1);
    // 2m00s, or 119s and less when this process started more than a second later (a loaded machine).
    expect(again.stderr).toMatch(/^error: rate limited \(HTTP 429, Retry-After\); nothing sent\. Try again at [\d: -]+, in (\d+m\d+s|1[01]\ds) \(rate_limited\)$/m);
    expect(namedTime(again.stderr)).toBeGreaterThanOrEqual(server.requests[0]!.at + 120_000 - 1000 - SLACK_MS);

    // Another key is another limit: it is sent.
    server.reply(json(200, [PET]));
    const otherKey = newApiKey();
    const other = await petctl(['pets', 'list'], { env: { PETCTL_API_KEY: otherKey }, secrets: [otherKey] });
    expect(other.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.headers.authorization).toBe(`Bearer ${otherKey}`);

    // So is another base URL (the same server reached as localhost) with the first key.
    server.reply(json(200, [PET]));
    const otherUrl = await petctl(['--base-url', `http://localhost:${server.port}/v1`, 'pets', 'list']);
    expect(otherUrl.code).toBe(0);
    expect(server.requests).toHaveLength(3);
    server.verify();
  });

  it('a banned key (key_banned, Retry-After 600): exit 5 saying so, and the next process sends nothing', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const banned = { code: 'key_banned', message: 'API key banned for 10 minutes', status: 429 };
    server.reply(json(429, banned, { 'retry-after': '600' }));

    const result = await petctl(['pets', 'list']);

    expect(result.code).toBe(5);
    expectCleanError(result);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: the API key is banned until [\d: -]+ \(in 10m00s\); petctl sends nothing before then \(key_banned, HTTP 429\)$/m);

    const again = await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '1']);
    expect(again.code).toBe(5);
    expectCleanError(again);
    expect(again.stderr).toMatch(/the API key is banned until [\d: -]+ \(in \d+m\d\ds\); petctl sends nothing before then/);
    expect(again.stderr).toMatch(/\(key_banned\)/);
    expect(server.requests).toHaveLength(1);
  });
});

describe.concurrent('X-RateLimit-Remaining: 0 on a success', () => {
  it('the next process waits for X-RateLimit-Reset before sending', async (t) => {
    const { server, petctl } = await setupE2e(t);
    // 5 s, so that under load the second process still has a wait of a second or more to announce.
    const reset = resetIn(5);
    server.reply(json(200, [PET], { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) }), json(200, [PET]));

    const first = await petctl(['pets', 'list']);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');

    const second = await petctl(['pets', 'list']);

    expect(second.code).toBe(0);
    expect(second.stdout).toBe(PET_LINE);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.at).toBeGreaterThanOrEqual(reset * 1000 - SLACK_MS);
    // stderr is not a TTY here: one plain line, no countdown.
    expect(second.stderr).toMatch(/^petctl: rate limit reached; waiting \ds for the window to reopen\n$/);
  });

  it('a reset beyond --max-wait: the next process exits 5 at once and sends nothing', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(json(200, [PET], { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(resetIn(30)) }));

    expect((await petctl(['pets', 'list'])).code).toBe(0);
    const second = await petctl(['--max-wait', '5', 'pets', 'list']);

    expect(second.code).toBe(5);
    expectCleanError(second);
    expect(second.stderr).toMatch(/^error: rate limit reached; nothing sent\. Try again at [\d: -]+, in \d+s \(rate_limited\)$/m);
    expect(second.stderr).toMatch(/^hint: raise --max-wait/m);
    expect(server.requests).toHaveLength(1);
  });
});

describe.concurrent('503 with Retry-After (RFC 9110 gives it to a 503 too)', () => {
  const UNAVAILABLE = { code: 'unavailable', message: 'Service unavailable', status: 503 };

  it('a GET is retried after exactly Retry-After (3 s), not on a backoff of its own: exit 0', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(json(503, UNAVAILABLE, { 'retry-after': '3' }), json(200, [PET]));

    const result = await petctl(['pets', 'list']);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(PET_LINE);
    const [first, second] = server.requests as [RecordedRequest, RecordedRequest];
    expect(second.at - first.at).toBeGreaterThanOrEqual(3000 - SLACK_MS);
    expect(notices(result)).toEqual(['petctl: retry 1/4 in 3s: HTTP 503']);
    server.verify();
  });
});
