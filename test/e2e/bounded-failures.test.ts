import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCleanError, setupE2e } from '../helpers/cli';

/**
 * Failures end in bounded time, whatever the server does: a request and its
 * retries end within max(--timeout, --max-wait) plus a second of its first
 * attempt (a host that does not resolve, or a plain-HTTP port spoken to in
 * TLS, fails at once: faults.test.ts). Timer values too long for a timer: test/commands/parsing.test.ts.
 */

/** --timeout 2 --max-wait 6: every request is over 7 s after its first attempt. */
const BOUND_MS = 7_000;
/** The process's own start and exit around the bound, on a loaded machine. */
const EXIT_SLACK_MS = 1_500;
const FLAGS = ['--timeout', '2', '--max-wait', '6'];

describe.concurrent('a server that accepts the connection and never answers', () => {
  // Every request's bound is the client's, whichever command sends it (test/api/waits.test.ts "the bound"); a page and a row here.
  it.for([
    { what: 'pets list', args: ['pets', 'list'] },
    { what: 'pets list --all (one page)', args: ['pets', 'list', '--all'] },
  ])('$what --timeout 2 --max-wait 6: over within 7 s of the first attempt, the attempts counted', async ({ args }, t) => {
    const { server, petctl } = await setupE2e(t, { hang: true });

    const result = await petctl([...FLAGS, ...args]);
    const ended = Date.now();

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(ended - server.requests[0]!.at).toBeLessThanOrEqual(BOUND_MS + EXIT_SLACK_MS);
    const attempts = new RegExp(`, ${server.requests.length} attempts over \\d+(\\.\\d)?s \\(timeout\\)$`, 'm');
    expect(result.stderr).toMatch(attempts);
    // A retry is started only with a second, or its whole --timeout, left before the bound.
    const lastStart = server.requests.at(-1)!.at - server.requests[0]!.at;
    expect(lastStart).toBeLessThanOrEqual(BOUND_MS - 1_000 + 200);
  });

  it('an import: each row is over within its bound, and no row is sent twice', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, { hang: true });
    const file = path.join(configDir, 'rows.csv');
    fs.writeFileSync(file, 'name,categoryId,status\nRex,1,available\nTom,2,pending\n');

    const started = Date.now();
    const result = await petctl([...FLAGS, 'pets', 'add', '--file', file]);

    expect(result.code).not.toBe(0);
    expect(result.stderr).not.toContain('    at ');
    // A row's POST may have been received: none is ever sent again.
    const names = server.requests.map((request) => JSON.parse(request.bodyBytes.toString()).name);
    expect(names.length).toBeGreaterThanOrEqual(1);
    expect(new Set(names).size).toBe(names.length);
    expect(Date.now() - started).toBeLessThanOrEqual(BOUND_MS + EXIT_SLACK_MS);
  });
});
