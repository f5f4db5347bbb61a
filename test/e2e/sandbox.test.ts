import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseJson } from '../../src/schemas/json';
import { startSandbox } from '../../src/sandbox/server';
import { type CliResult, cliSession, runCli, tempDir, WAIT } from '../helpers/cli';
import { startSandboxProcess } from '../helpers/sandbox-process';
import { FREE, call } from '../sandbox/helpers';

/**
 * `petctl sandbox` as a foreground child process, and the built-in sandbox profile's pacing across processes.
 * A --data file that is not the sandbox's, or a port in use: test/app/sandbox-start.test.ts.
 */

/** An aligned table: the header, then one key per line (`awk '{print $1}'` still picks the keys). */
const KEY_LINES = [
  'KEY                 PLAN        PER MINUTE  PER DAY',
  'sandbox-free        free        60          1000',
  'sandbox-pro         pro         300         10000',
  'sandbox-business    business    1000        100000',
  'sandbox-enterprise  enterprise  5000        1000000',
];

/** A request log line: the local time it ended, then method, target, status, plan, duration. */
const TIME = String.raw`\d\d:\d\d:\d\d`;

// The run itself (the key table, local times in the log, --data, --quotas) is test/commands/sandbox-run.test.ts's.
it('petctl sandbox prints the base URL, then the keys; petctl --base-url <its URL> works with the default key, animals in memory; it logs each request by plan, never by key, and ends by SIGINT, freeing the port', async (t) => {
  const configDir = tempDir();
  const sandbox = await startSandboxProcess(['--port', '0'], { t, env: { PETCTL_CONFIG_DIR: tempDir() } });
  expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  expect(sandbox.baseUrl).not.toMatch(/:0\/v1$/);
  // stdout and stderr are separate pipes: wait for the key lines rather than assume an order.
  await vi.waitFor(() => expect(sandbox.stdout()).toBe(`${sandbox.baseUrl}\n${KEY_LINES.join('\n')}\n`), WAIT);
  expect((await sandbox.logged(/listening on/))[0]).toContain(`listening on ${sandbox.baseUrl}`);

  const petctl = cliSession({ args: ['--base-url', sandbox.baseUrl], env: { PETCTL_CONFIG_DIR: configDir } });
  expect(await petctl(['pets', 'list', '--limit', '2'])).toMatchObject({ code: 0, stdout: '1\tRex\t1\tavailable\n2\tBella\t1\tpending\n', stderr: '' });
  const status = JSON.parse((await petctl(['auth', 'status', '-o', 'json'])).stdout);
  expect(status).toMatchObject({ baseUrl: sandbox.baseUrl, baseUrlSource: 'flag', keySource: 'sandbox-default', rateLimit: { limit: 60 } });
  const added = await petctl(['pets', 'add', '--name', 'Visitor', '--category-id', '3', '-o', 'json']);
  expect(JSON.parse(added.stdout)).toEqual({ id: 13, name: 'Visitor', categoryId: 3 });
  expect(fs.existsSync(path.join(configDir, 'sandbox-data.json'))).toBe(false);
  expect((await call(sandbox.baseUrl, '/pets', { key: null })).status).toBe(401);
  await sandbox.logged(new RegExp(`^${TIME} GET /v1/pets\\?limit=2 200 free \\d+ms$`));
  await sandbox.logged(new RegExp(`^${TIME} POST /v1/pets 201 free `));
  await sandbox.logged(new RegExp(`^${TIME} GET /v1/pets 401 - \\d+ms$`));
  expect(sandbox.stderr()).not.toContain('sandbox-free');

  expect(await sandbox.stop('SIGINT')).toEqual({ code: null, signal: 'SIGINT' });
  await expect(call(sandbox.baseUrl, '/pets')).rejects.toThrow();
});

describe('the sandbox profile paces a shell loop past the Free plan limit', () => {
  /**
   * 57 requests from another client of the key and data file, then 6 petctl commands: the 4th would
   * send the 61st and waits for the window instead. Windows are read from X-RateLimit-Reset, not this clock.
   */
  it('commands after the 60th request wait for the next window: all exit 0, no 429, no ban', async () => {
    const configDir = tempDir();
    const dataFile = path.join(configDir, 'sandbox-data.json');
    const env = { PETCTL_CONFIG_DIR: configDir };

    const other = await startSandbox({ port: 0, dataFile });
    let firstReset = 0;
    try {
      for (let i = 0; i < 57; i++) {
        const reply = await call(other.baseUrl, '/pets?limit=1', { key: FREE });
        expect(reply.status).toBe(200);
        firstReset = Number(reply.headers['x-ratelimit-reset']);
      }
    } finally {
      await other.close();
    }

    const results: Array<CliResult & { endedAt: number }> = [];
    for (let i = 0; i < 6; i++) {
      // --max-wait above the minute: this test is about pacing, not the --max-wait bound.
      const result = await runCli(['--verbose', '--max-wait', '120', 'pets', 'list', '--limit', '1'], { env, timeoutMs: 150_000 });
      results.push({ ...result, endedAt: Date.now() });
    }

    for (const [index, result] of results.entries()) {
      const label = `command ${index + 1}: ${result.stderr}`;
      expect(result.code, label).toBe(0);
      expect(result.stdout, label).toBe('1\tRex\t1\tavailable\n');
      // Exactly one request, answered 200: never a 429.
      expect(result.stderr.match(/^< \d+ /gm), label).toEqual(['< 200 ']);
      expect(result.stderr, label).not.toMatch(/^< 429|HTTP 429|rate_limited|key_banned/m);
    }
    const answers = results.map((result) => [
      Number(/x-ratelimit-remaining=(\d+)/.exec(result.stderr)?.[1]),
      Number(/x-ratelimit-reset=(\d+)/.exec(result.stderr)?.[1]),
    ]);
    // Commands 1-3 used the first window's last three requests; 4-6 opened the next window.
    expect(answers.map(([remaining]) => remaining)).toEqual([2, 1, 0, 59, 58, 57]);
    expect(answers.slice(0, 3).map(([, reset]) => reset)).toEqual([firstReset, firstReset, firstReset]);
    for (const [, reset] of answers.slice(3)) expect(reset).toBeGreaterThanOrEqual(firstReset + 60);

    // Commands 1-3 went straight through; command 4 said why it waited, and ended no earlier than the reset.
    for (const result of results.slice(0, 3)) expect(result.stderr).not.toMatch(/petctl: .*wait/);
    expect(results[3]!.stderr).toMatch(/^petctl: .*wait.*\d+s/m);
    expect(results[3]!.endedAt).toBeGreaterThanOrEqual(firstReset * 1000 - 1000);
    for (const result of results.slice(4)) expect(result.stderr).not.toMatch(/petctl: .*wait/);

    // The service's own record: no strikes against the key.
    const stored = parseJson(fs.readFileSync(`${dataFile}.limits.json`, 'utf8')) as { rateLimits: Record<string, { minuteCount: number; strikes: number }> };
    expect(stored.rateLimits[FREE]).toMatchObject({ minuteCount: 3, strikes: 0 });
  }, 180_000);
});
