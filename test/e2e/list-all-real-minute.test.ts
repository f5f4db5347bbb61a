import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type TestContext, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/server';
import { inBash, ok, runCli, tempDir } from '../helpers/cli';
import { writeSandboxData } from '../helpers/sandbox-data';
import { FREE, call } from '../sandbox/helpers';

/**
 * 650 animals at 10 a page on the Free plan's real minute: a wait for the second window past --max-wait 10, then
 * another client spends the window and the 429 stops the listing. Time only from below.
 */

const ANIMALS = 650;

/** A pass-through to the sandbox recording statuses; before request `spendBefore`, another client spends the window. */
async function startRelay(t: Pick<TestContext, 'onTestFinished'>, sandbox: RunningSandbox, spendBefore: number) {
  const statuses: number[] = [];
  let pages = 0;
  let spent = 0;
  const target = new URL(sandbox.baseUrl);
  const server = http.createServer((req, res) => {
    void (async () => {
      pages += 1;
      for (let left = pages === spendBefore ? 1 : 0; left > 0; spent++) {
        const other = await call(sandbox.baseUrl, '/pets?limit=1', { key: FREE });
        expect(other.status).toBe(200);
        left = Number(other.headers['x-ratelimit-remaining']);
      }
      const forwarded = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        statuses.push(answer.statusCode ?? 0);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(forwarded);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, statuses, spent: () => spent };
}

function ids(stdout: string): number[] {
  return (JSON.parse(stdout) as Array<{ id: number }>).map((pet) => pet.id);
}

const LISTINGS = [
  { command: 'pets list --all', args: ['pets', 'list', '--all', '--limit', '10'], items: 'animals' },
  { command: 'api --paginate', args: ['api', '--paginate', '/pets?limit=10'], items: 'items' },
];

it.concurrent.for(LISTINGS)('$command waits out the minute window, stops at a 429 with valid JSON and the command to continue, which finishes with every animal once', { timeout: 240_000 }, async ({ args, items }, t) => {
  const configDir = tempDir();
  const dataFile = path.join(configDir, 'server-data.json');
  writeSandboxData(dataFile, JSON.stringify(Array.from({ length: ANIMALS }, (_, i) => ({ id: i + 1, name: `Pet ${i + 1}`, categoryId: 1, status: 'available' }))));
  const sandbox = await startSandbox({ port: 0, dataFile });
  t.onTestFinished(() => sandbox.close());
  const relay = await startRelay(t, sandbox, 62);
  const env = { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: FREE };

  const started = Date.now();
  const first = await runCli(['--base-url', relay.baseUrl, '--max-wait', '10', ...args, '-o', 'json'], { env, timeoutMs: 110_000 });
  expect(first.code, first.stderr).toBe(5);
  expect(Date.now() - started).toBeGreaterThan(55_000);
  expect(first.stderr).toMatch(/^petctl: rate limit reached; waiting \d+s for the window to reopen$/m);
  const printed = ids(first.stdout);
  expect(printed).toEqual(Array.from({ length: 610 }, (_, index) => index + 1));
  const stop = new RegExp(`^stopped after 610 ${items} \\(page 62\\); continue with: (.+)$`, 'm').exec(first.stderr);
  expect(stop, first.stderr).not.toBeNull();
  expect(JSON.parse(first.stderr.trimEnd().split('\n').at(-1)!)).toMatchObject({ code: 'rate_limited', status: 429 });
  expect(first.stderr).not.toContain('nothing sent');
  expect(relay.statuses.filter((status) => status === 429)).toHaveLength(1);

  const rest = await ok(inBash(stop![1]!, env));
  const all = [...printed, ...ids(rest.stdout)];
  expect(all).toEqual(Array.from({ length: ANIMALS }, (_, index) => index + 1));
  expect(relay.statuses.filter((status) => status === 429)).toHaveLength(1);
  expect(relay.spent()).toBeGreaterThan(0);
});
