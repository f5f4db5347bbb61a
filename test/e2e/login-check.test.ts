import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSession, expectCleanError, newApiKey, tempDir } from '../helpers/cli';
import { json, startScriptedServer } from '../helpers/scripted-server';

/**
 * `auth login` stores a key only when the service accepted it, with --no-verify, or when the service could
 * not be reached at all (those three: test/commands/auth-run.test.ts). Here, answers that store nothing.
 */

const NOT_FOUND = json(404, { code: 'not_found', message: 'no such path: /pets', status: 404 });
const WRONG = (url: string) => `error: ${url} has no /pets (HTTP 404): the base URL is wrong; nothing stored (wrong_base_url, HTTP 404)\n`;

describe.concurrent('auth login checks the key before storing it', () => {
  it.for([
    {
      what: 'a 404 from a base URL without /v1: exit 2, and the hint names the corrected URL',
      reply: NOT_FOUND,
      base: (v1: string) => v1.replace(/\/v1$/, ''),
      code: 2,
      stderr: (url: string) => `${WRONG(url)}hint: the base URL probably lacks /v1: ${url}/v1\n`,
    },
    {
      what: 'a 404 from a base URL that ends in a version: exit 2, and no /v1 guess',
      reply: NOT_FOUND,
      base: (v1: string) => v1,
      code: 2,
      stderr: (url: string) => `${WRONG(url)}hint: check the base URL: petctl profile show\n`,
    },
    {
      what: 'a 503 (an answer, but no verdict on the key): exit 7, --no-verify suggested',
      reply: json(503, { code: 'unavailable', message: 'try later', status: 503 }),
      base: (v1: string) => v1,
      code: 7,
      stderr: () => expect.stringMatching(/^error: the key could not be checked \(.*\); nothing stored \(unavailable, HTTP 503\)\nhint: --no-verify stores it without asking the service\n$/),
    },
  ])('$what; nothing stored', async ({ reply, base, code, stderr }, t) => {
    const server = await startScriptedServer(reply);
    t.onTestFinished(() => server.close());
    const configDir = tempDir();
    const key = newApiKey();
    const petctl = cliSession({ env: { PETCTL_CONFIG_DIR: configDir }, secrets: [key] });
    const baseUrl = base(server.baseUrl);
    expect((await petctl(['profile', 'add', 'production', '--base-url', baseUrl])).code).toBe(0);

    const result = await petctl(['auth', 'login', '--insecure-storage', '--retries', '0', '--with-token'], { input: key });

    expect(result.code).toBe(code);
    expectCleanError(result);
    expect(result.stderr).toEqual(stderr(baseUrl));
    expect(JSON.parse(fs.readFileSync(path.join(configDir, 'config.json'), 'utf8')).profiles.production.apiKey).toBeUndefined();
    // The same when --base-url gives the base URL for the one command; -o json gives the code.
    if (code !== 2 || baseUrl === server.baseUrl) return;
    expect((await petctl(['profile', 'add', 'right', '--base-url', server.baseUrl])).code).toBe(0);
    const given = await petctl(['-o', 'json', '--base-url', baseUrl, 'auth', 'login', '--insecure-storage', '-p', 'right', '--with-token'], { input: key });
    expect(JSON.parse(given.stderr)).toMatchObject({ code: 'wrong_base_url', status: 404 });
    expect(server.requests.map((request) => request.path)).toEqual(['/pets', '/pets']);
  });
});
