import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, describe, expect, it } from 'vitest';
import { type CliResult, cliSession, expectCleanError, newApiKey, tempDir } from '../helpers/cli';
import { type Reply, json, startScriptedServer } from '../helpers/scripted-server';

/**
 * `auth login` stores a key only when the service accepted it, with
 * --no-verify, or when the service could not be reached at all. The built
 * binary against a scripted server; what was stored is read from config.json.
 */

const NOT_FOUND = json(404, { code: 'not_found', message: 'no such path: /pets', status: 404 });

async function login(t: Pick<TestContext, 'onTestFinished'>, reply: Reply, baseUrlOf: (v1: string) => string, extra: string[] | ((v1: string) => string[]) = []) {
  const server = await startScriptedServer(reply);
  const configDir = tempDir();
  t.onTestFinished(() => server.close());
  const key = newApiKey();
  const petctl = cliSession({ env: { PETCTL_CONFIG_DIR: configDir }, secrets: [key] });
  const baseUrl = baseUrlOf(server.baseUrl);
  expect((await petctl(['profile', 'add', 'production', '--base-url', baseUrl])).code).toBe(0);
  const flags = typeof extra === 'function' ? extra(server.baseUrl) : extra;
  const result = await petctl(['auth', 'login', '--insecure-storage', '-p', 'production', '--with-token', ...flags], { input: key });
  const stored = JSON.parse(fs.readFileSync(path.join(configDir, 'config.json'), 'utf8')).profiles.production.apiKey as string | undefined;
  return { result, stored, key, baseUrl, server };
}

const withoutVersion = (v1: string) => v1.replace(/\/v1$/, '');

function expectNothingStored(result: CliResult, stored: string | undefined, code: number): void {
  expect(result.code).toBe(code);
  expect(stored).toBeUndefined();
  expectCleanError(result);
}

// Stored after a 200, with --no-verify, or when nothing answers: test/commands/auth-run.test.ts.
describe.concurrent('auth login checks the key before storing it', () => {
  it('a 404 from a base URL without /v1: nothing stored, exit 2, and the hint names the corrected URL', async (t) => {
    const { result, stored, baseUrl, server } = await login(t, NOT_FOUND, withoutVersion);
    expectNothingStored(result, stored, 2);
    expect(result.stderr).toBe(
      `error: ${baseUrl} has no /pets (HTTP 404): the base URL is wrong; nothing stored (wrong_base_url, HTTP 404)\nhint: the base URL probably lacks /v1: ${baseUrl}/v1\n`,
    );
    expect(server.requests.map((request) => request.path)).toEqual(['/pets']);
  });

  it('the same when --base-url gives the base URL for the one command; -o json gives the code', async (t) => {
    const { result, stored, server } = await login(t, NOT_FOUND, (v1) => v1, (v1) => ['-o', 'json', '--base-url', withoutVersion(v1)]);
    expect(result.code).toBe(2);
    expect(stored).toBeUndefined();
    expect(JSON.parse(result.stderr)).toMatchObject({ code: 'wrong_base_url', status: 404 });
    expect(server.requests.map((request) => request.path)).toEqual(['/pets']);
  });

  it('a 404 from a base URL that ends in a version: nothing stored, exit 2, and no /v1 guess', async (t) => {
    const { result, stored, baseUrl } = await login(t, NOT_FOUND, (v1) => v1);
    expectNothingStored(result, stored, 2);
    expect(result.stderr).toBe(`error: ${baseUrl} has no /pets (HTTP 404): the base URL is wrong; nothing stored (wrong_base_url, HTTP 404)\nhint: check the base URL: petctl profile show\n`);
  });

  it('a 503 (an answer, but no verdict on the key): nothing stored, exit 7, --no-verify suggested', async (t) => {
    const { result, stored } = await login(t, json(503, { code: 'unavailable', message: 'try later', status: 503 }), (v1) => v1, ['--retries', '0']);
    expectNothingStored(result, stored, 7);
    expect(result.stderr).toMatch(/^error: the key could not be checked \(.*\); nothing stored \(unavailable, HTTP 503\)\nhint: --no-verify stores it without asking the service\n$/);
  });
});
