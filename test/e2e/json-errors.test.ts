import { describe, expect, it } from 'vitest';
import { type CliResult, SLACK_MS, expectCleanError, jsonError, setupE2e, writeInput } from '../helpers/cli';
import { PET, json } from '../helpers/scripted-server';

/** The JSON error line's retryAt, and status 429 for a refusal whether the server answered or saved state did. */

const ISO_SECOND = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/;
const RATE_LIMITED = { code: 'rate_limited', message: 'Too many requests', status: 429 };

/** retryAt in epoch ms: `waitMs` after the refused request at the earliest, after the end (+1 s) at the latest. */
function expectRetryAt(error: Record<string, unknown>, from: number, waitMs: number, ended: number): number {
  expect(error.retryAt).toMatch(ISO_SECOND);
  const retryAt = Date.parse(error.retryAt as string);
  expect(retryAt).toBeGreaterThanOrEqual(from + waitMs - SLACK_MS);
  expect(retryAt).toBeLessThanOrEqual(ended + waitMs + 1000);
  return retryAt;
}

async function timed(run: () => Promise<CliResult>): Promise<{ result: CliResult; ended: number }> {
  const result = await run();
  return { result, ended: Date.now() };
}

describe.concurrent('retryAt and status in JSON errors', () => {
  it('after a 429 petctl will not wait out: the server Error body as received, fields and order, with retryAt from its Retry-After in place of its own; on a refusal from saved state after it: status 429 (never 0), and the same retryAt, with nothing sent, for auth login too', async (t) => {
    const { server, key, petctl } = await setupE2e(t);
    server.reply(json(429, { ...RATE_LIMITED, retryAt: 'whenever', extra: 1 }, { 'retry-after': '120' }));

    const { result, ended } = await timed(() => petctl(['pets', 'list', '-o', 'json']));

    expect(result.code).toBe(5);
    const error = jsonError(result);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${JSON.stringify({ ...RATE_LIMITED, retryAt: error.retryAt, extra: 1 })}\n`);
    const firstRetryAt = expectRetryAt(error, server.requests[0]!.at, 120_000, ended);
    server.verify();

    const saved = await timed(() => petctl(['pets', 'list', '-o', 'json', '--max-wait', '0']));
    expectCleanError(saved.result, 5);
    const savedError = jsonError(saved.result);
    expect(savedError).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(savedError.message).toMatch(/nothing sent/);
    expect(Math.abs(expectRetryAt(savedError, server.requests[0]!.at, 120_000, saved.ended) - firstRetryAt)).toBeLessThanOrEqual(1000);

    const login = await timed(() => petctl(['auth', 'login', '--with-token', '-o', 'json'], { env: { PETCTL_API_KEY: undefined }, input: key }));
    expect(login.result.code).toBe(5);
    const loginError = jsonError(login.result);
    expect(loginError).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(loginError.message).toMatch(/^the key could not be checked/);
    expectRetryAt(loginError, server.requests[0]!.at, 120_000, login.ended);
    expect(server.requests).toHaveLength(1);
  });

  it('a 400 Error body as received: a field beyond the three with an int64 or a long decimal, digit for digit', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const body = '{"code":"bad_request","message":"no","status":400,"id":9007199254740993,"score":0.10000000000000000000001}';
    server.reply({ status: 400, body, headers: { 'content-type': 'application/json' } });

    const result = await petctl(['pets', 'list', '-o', 'json']);

    expectCleanError(result, 6);
    expect(result.stderr).toBe(`${body}\n`);
    server.verify();
  });

  it('the commands a 429 stops say when too: pets list --all and an import, each in its last stderr line', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t);
    const page = `[${JSON.stringify(PET)}]`;
    server.reply(
      { status: 200, body: page, headers: { Link: '</v1/pets?limit=1&after=1>; rel="next"' } },
      json(429, RATE_LIMITED, { 'retry-after': '120' }),
    );
    const listing = await timed(() => petctl(['pets', 'list', '--all', '--limit', '1', '-o', 'json']));
    expect(listing.result.code).toBe(5);
    const listingError = JSON.parse(listing.result.stderr.trimEnd().split('\n').at(-1)!) as Record<string, unknown>;
    expect(listingError).toMatchObject({ code: 'rate_limited', status: 429 });
    expectRetryAt(listingError, server.requests[1]!.at, 120_000, listing.ended);

    const file = writeInput(configDir, 'rows.ndjson', '{"name":"A","categoryId":1}\n');
    const importing = await petctl(['pets', 'add', '--file', file, '-o', 'ndjson']);
    expect(importing.code).toBe(5);
    expect(server.requests).toHaveLength(2);
    const importError = JSON.parse(importing.stderr.trimEnd().split('\n').at(-1)!) as Record<string, unknown>;
    expect(importError).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(Math.abs(Date.parse(importError.retryAt as string) - Date.parse(listingError.retryAt as string))).toBeLessThanOrEqual(1000);
  });
});
