import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, newApiKey, runCli, tempDir } from '../helpers/cli';
import { json, startScriptedServer } from '../helpers/scripted-server';

/**
 * Many processes in one config directory, through the CLI only: every file still parses, nothing one
 * process wrote is lost, modes stay 0600/0700. docs/reliability.md quotes PROCESSES.
 */

const PROCESSES = 20;
const TIMEOUT_MS = 120_000;

function modeOf(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

/**
 * Every file petctl left in `dir` parses and is 0600; the directory is 0700; no temporary or lock
 * files remain. The sandbox's data file is a log of one JSON document per line (docs/sandbox.md).
 */
function expectPrivateAndWhole(dir: string): void {
  expect(modeOf(dir)).toBe(0o700);
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    expect(name, 'no leftover temporary or lock file').toMatch(/^[a-z-]+\.json(\.limits\.json)?$/);
    expect(modeOf(file), name).toBe(0o600);
    const text = fs.readFileSync(file, 'utf8');
    const documents = name === 'sandbox-data.json' ? text.split('\n').filter((line) => line !== '') : [text];
    for (const document of documents) expect(() => JSON.parse(document), name).not.toThrow();
  }
}

function expectAllSucceeded(results: CliResult[]): void {
  for (const [index, result] of results.entries()) expect(result.code, `process ${index}: ${result.stderr}`).toBe(0);
}

function allAtOnce(run: (index: number) => Promise<CliResult>): Promise<CliResult[]> {
  return Promise.all(Array.from({ length: PROCESSES }, (_, index) => run(index)));
}

describe(`${PROCESSES} petctl processes at once in one config directory`, () => {
  it('add profiles, log in and record 429s: every profile, key and wait is kept; files parse and stay private', { timeout: TIMEOUT_MS * 4 }, async (t) => {
    const server = await startScriptedServer(json(429, { code: 'rate_limited', message: 'slow down', status: 429 }, { 'retry-after': '600' }));
    t.onTestFinished(() => server.close());
    const dir = tempDir();
    const env = { PETCTL_CONFIG_DIR: dir };
    const keys = Array.from({ length: PROCESSES }, () => newApiKey());
    const petctl = (index: number, args: string[], input?: string) =>
      runCli(args, { env, input, secrets: keys, timeoutMs: TIMEOUT_MS });

    expectAllSucceeded(await allAtOnce((i) => petctl(i, ['profile', 'add', `p${i}`, '--base-url', server.baseUrl])));
    expectPrivateAndWhole(dir);
    expectAllSucceeded(await allAtOnce((i) => petctl(i, ['auth', 'login', '--insecure-storage', '--no-verify', '-p', `p${i}`, '--with-token'], `${keys[i]}\n`)));
    expectPrivateAndWhole(dir);

    // Each process is refused with Retry-After 600 and records that in the shared state file.
    const limited = await allAtOnce((i) => petctl(i, ['-p', `p${i}`, '--max-wait', '0', 'pets', 'list']));
    for (const result of limited) expect(result.code).toBe(5);
    expect(server.requests).toHaveLength(PROCESSES);
    expect(new Set(server.requests.map((r) => r.headers.authorization))).toEqual(new Set(keys.map((key) => `Bearer ${key}`)));
    expectPrivateAndWhole(dir);

    // Nothing lost: every profile is listed with its own key, and every recorded wait still holds (nothing more is sent).
    const listed = await petctl(0, ['profile', 'list', '-o', 'json']);
    expect(listed.code).toBe(0);
    const profiles = JSON.parse(listed.stdout) as Array<{ name: string; key?: string }>;
    expect(profiles.map((p) => p.name).sort()).toEqual(['sandbox', ...keys.map((_, i) => `p${i}`)].sort());
    const stored = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, { apiKey?: string }> };
    for (const [i, key] of keys.entries()) expect(stored.profiles[`p${i}`]?.apiKey, `p${i}`).toBe(key);

    const again = await allAtOnce((i) => petctl(i, ['-p', `p${i}`, '--max-wait', '0', 'pets', 'list']));
    for (const result of again) {
      expect(result.code).toBe(5);
      expect(result.stderr).toMatch(/nothing sent/);
    }
    expect(server.requests).toHaveLength(PROCESSES);
    expectPrivateAndWhole(dir);
  });
});
