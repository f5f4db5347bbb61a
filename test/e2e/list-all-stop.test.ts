import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, NODE, cleanEnv, inBash, setupE2e } from '../helpers/cli';
import { type RecordedRequest, startScriptedServer } from '../helpers/scripted-server';
import { linkedPage, petsPage, refusedPastMaxWait } from '../helpers/linked-pages';

/**
 * `pets list --all` stopped halfway, against scripted servers: what it fetched
 * stays on stdout in every format (-o json a closed array), stderr gives the
 * command that continues, and `--starting-token` continues from there.
 */

const BIG = '9007199254740993';

/** The ids of a JSON array on stdout, digit for digit (an int64 above 2^53 included). */
function jsonIds(stdout: string): string[] {
  expect(() => JSON.parse(stdout)).not.toThrow();
  return [...stdout.matchAll(/"id": (\d+)/g)].map((match) => match[1]!);
}

/** The command after "continue with: " on stderr. */
function continuation(stderr: string): string {
  const match = /^stopped after [\d,]+ animals \(page \d+\); continue with: (.+)$/m.exec(stderr);
  expect(match, stderr).not.toBeNull();
  return match![1]!;
}

describe.concurrent('pets list --all stopped by a 429', () => {
  it('leaves one valid JSON array on stdout, and the command it prints continues in a shell: every animal once', async (t) => {
    const { server, key, configDir, petctl } = await setupE2e(t);
    // A link with what a shell would run or expand, were it not quoted.
    const next = "/v1/pets?limit=2&status=available&after=4&x=$(exit%209)`false`;*|";
    server.reply(linkedPage(petsPage([1, 2]), '/v1/pets?limit=2&status=available&after=2'), linkedPage(petsPage([3, BIG]), next), refusedPastMaxWait);
    const first = await petctl(['--max-wait', '1', 'pets', 'list', '--all', '--limit', '2', '--status', 'available', '-o', 'json']);
    expect(first.code).toBe(5);
    expect(jsonIds(first.stdout)).toEqual(['1', '2', '3', BIG]);
    const command = continuation(first.stderr);
    expect(first.stderr).toContain('stopped after 4 animals (page 3); continue with: petctl pets list --all --limit 2 --status available');
    expect(command).toContain(`--base-url http://127.0.0.1:${server.port}/v1 -o json --starting-token '${next}'`);
    expect(first.stderr).not.toContain('nothing sent');

    server.reply(linkedPage(petsPage(['9007199254740995'])));
    const rest = await inBash(command, { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key });
    expect(rest.code, rest.stderr).toBe(0);
    expect(server.requests.at(-1)!.url).toBe(next);
    expect([...jsonIds(first.stdout), ...jsonIds(rest.stdout)]).toEqual(['1', '2', '3', BIG, '9007199254740995']);
    server.verify();
  });

  // Each format written page by page, and the continue command's flags: test/output/listing.test.ts.
  it('--query runs over what was fetched before the stop', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(linkedPage(petsPage([1, 2]), '/v1/pets?limit=2&after=2'), linkedPage(petsPage([3]), '/v1/pets?limit=2&after=3'), refusedPastMaxWait);
    const queried = await petctl(['--max-wait', '1', 'pets', 'list', '--all', '--limit', '2', '-o', 'json', '--query', '[].id']);
    expect(queried.code).toBe(5);
    expect(JSON.parse(queried.stdout)).toEqual([1, 2, 3]);
    expect(continuation(queried.stderr)).toContain(" --query '[].id' ");
    server.verify();
  });

  it('a stop in the gate names the page it did not request; it never says "nothing sent"', async (t) => {
    const { server, petctl } = await setupE2e(t);
    // Nothing left until a reset an hour away: the day's quota, which --max-wait bounds.
    const reset = String(Math.ceil(Date.now() / 1000) + 3600);
    server.reply(linkedPage(petsPage([1, 2]), '/v1/pets?limit=2&after=2', { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset }));
    const result = await petctl(['pets', 'list', '--all', '--limit', '2']);
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('1\tPet 1\t1\tavailable\n2\tPet 2\t1\tavailable\n');
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toMatch(/^stopped after 2 animals \(page 2\); continue with: petctl pets list --all --limit 2 --base-url \S+ --starting-token '\/v1\/pets\?limit=2&after=2'$/);
    expect(lines[1]).toMatch(/^error: the daily quota is used up; page 2 not requested\. Try again at .+, in (59m\d\ds|1h00m) \(quota_exhausted\)$/);
    expect(result.stderr).not.toContain('nothing sent');
    expect(server.requests).toHaveLength(1);
  });
});

describe.concurrent('pets list --all paces itself', () => {
  it('the minute window is its pace, not a stop: a page that leaves none waits for the reset, past --max-wait', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const reset = Math.ceil(Date.now() / 1000) + 3;
    const limits = { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(reset), Date: new Date().toUTCString() };
    server.reply(linkedPage(petsPage([1, 2]), '/v1/pets?limit=2&after=2', limits), linkedPage(petsPage([3])));
    const result = await petctl(['--max-wait', '1', 'pets', 'list', '--all', '--limit', '2']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(3);
    expect(result.stderr).toMatch(/^petctl: rate limit reached; waiting \ds for the window to reopen$/m);
    expect(server.requests[1]!.at).toBeGreaterThanOrEqual((reset - 1) * 1000);
  });
});

describe.concurrent('Ctrl-C during pets list --all', () => {
  it('closes the JSON array, says how far it got and how to continue, and ends by SIGINT', async (t) => {
    const server = await startScriptedServer({ hang: true });
    t.onTestFinished(() => server.close());
    server.reply(linkedPage(petsPage([1, 2]), '/v1/pets?limit=2&after=2'));
    const child = spawn(NODE, [BIN, '--base-url', server.baseUrl, 'pets', 'list', '--all', '--limit', '2', '-o', 'json'], {
      env: cleanEnv({ PETCTL_CONFIG_DIR: '/nonexistent-petctl-test', PETCTL_API_KEY: 'k-interrupt-test' }),
    });
    let stdout = '';
    let stderr = '';
    const secondPageAsked = server.received(2);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (code, signal) => resolve([code, signal])));
    await secondPageAsked;
    child.kill('SIGINT');
    const [, signal] = await ended;
    expect(signal).toBe('SIGINT');
    expect(JSON.parse(stdout)).toHaveLength(2);
    expect(stderr).toContain("stopped after 2 animals (page 2); continue with: petctl pets list --all --limit 2 --base-url");
    expect(stderr).toMatch(/ --starting-token '\/v1\/pets\?limit=2&after=2'\n/);
    expect(stderr).not.toContain('    at ');
  });
});

describe.concurrent('pets list --starting-token', () => {
  it('starts at the link with its filters, as a path or on the base URL\'s origin, and implies --all', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(linkedPage(petsPage([3]), '/v1/pets?limit=2&status=available&after=3'), linkedPage(petsPage([]), undefined), linkedPage(petsPage([5])));
    const fromPath = await petctl(['pets', 'list', '--status', 'available', '--starting-token', '/v1/pets?limit=2&status=available&after=2']);
    expect(fromPath.code, fromPath.stderr).toBe(0);
    expect(fromPath.stdout).toBe('3\tPet 3\t1\tavailable\n');
    const absolute = await petctl(['pets', 'list', '--starting-token', `${server.baseUrl}/pets?limit=2&after=4`]);
    expect(absolute.code, absolute.stderr).toBe(0);
    expect(server.requests.map((request: RecordedRequest) => request.url)).toEqual([
      '/v1/pets?limit=2&status=available&after=2',
      '/v1/pets?limit=2&status=available&after=3',
      '/v1/pets?limit=2&after=4',
    ]);
    server.verify();
  });

  it('refuses, before sending anything (exit 2), a token off the base URL\'s origin, one that is no link, or filters it contradicts', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const offOrigin = await petctl(['pets', 'list', '--all', '--starting-token', `http://localhost:${server.port}/v1/pets?after=2`]);
    expect(offOrigin.code).toBe(2);
    expect(offOrigin.stderr).toBe(
      `error: --starting-token leads to http://localhost:${server.port}, not to the base URL's origin (http://127.0.0.1:${server.port}); the API key goes only there (usage_error)\n`,
    );
    const elsewhere = await petctl(['pets', 'list', '--starting-token', '//evil.example/v1/pets']);
    expect(elsewhere.code).toBe(2);
    const notALink = await petctl(['pets', 'list', '--starting-token', 'after=2']);
    expect(notALink.code).toBe(2);
    expect(notALink.stderr).toBe('error: --starting-token must be the link a stopped `pets list --all` printed, not "after=2" (usage_error)\n');
    const otherFilter = await petctl(['pets', 'list', '--status', 'sold', '--starting-token', '/v1/pets?limit=2&status=available&after=2']);
    expect(otherFilter.code).toBe(2);
    expect(otherFilter.stderr).toBe(
      'error: --starting-token continues a listing with status=available, not --status sold (usage_error)\nhint: leave out --status, or give --status available\n',
    );
    expect(server.requests).toHaveLength(0);
  });
});
