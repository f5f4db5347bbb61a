import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/schemas/json';
import { type CliResult, newApiKey, runCli, tempDir } from '../helpers/cli';
import { storedPets } from '../helpers/sandbox-data';
import { json, startScriptedServer } from '../helpers/scripted-server';

/** Many processes in one config directory: every file parses, nothing is lost, modes stay 0600/0700. */

const PROCESSES = 20;

/** The sandbox's data file is a log of one JSON document per line. */
function expectPrivateAndWhole(dir: string): void {
  expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    expect(name, 'no leftover temporary or lock file').toMatch(/^[a-z-]+\.json(\.limits\.json)?$/);
    expect(fs.statSync(file).mode & 0o777, name).toBe(0o600);
    const text = fs.readFileSync(file, 'utf8');
    for (const document of name === 'sandbox-data.json' ? text.split('\n').filter(Boolean) : [text]) expect(() => JSON.parse(document), name).not.toThrow();
  }
}

async function allAtOnce(run: (index: number) => Promise<CliResult>, code = 0): Promise<CliResult[]> {
  const results = await Promise.all(Array.from({ length: PROCESSES }, (_, index) => run(index)));
  for (const [index, result] of results.entries()) expect(result.code, `process ${index}: ${result.stderr}`).toBe(code);
  return results;
}

describe(`${PROCESSES} petctl processes at once in one config directory`, () => {
  it('add profiles, log in and record 429s: every profile, key and wait is kept; files parse and stay private', { timeout: 480_000 }, async (t) => {
    const server = await startScriptedServer(json(429, { code: 'rate_limited', message: 'slow down', status: 429 }, { 'retry-after': '600' }));
    t.onTestFinished(() => server.close());
    const dir = tempDir();
    const keys = Array.from({ length: PROCESSES }, () => newApiKey());
    const petctl = (args: string[], input?: string) => runCli(args, { env: { PETCTL_CONFIG_DIR: dir }, input, secrets: keys, timeoutMs: 120_000 });

    await allAtOnce((i) => petctl(['profile', 'add', `p${i}`, '--base-url', server.baseUrl]));
    expectPrivateAndWhole(dir);
    await allAtOnce((i) => petctl(['auth', 'login', '--insecure-storage', '--no-verify', '-p', `p${i}`, '--with-token'], `${keys[i]}\n`));
    expectPrivateAndWhole(dir);
    await allAtOnce((i) => petctl(['-p', `p${i}`, '--max-wait', '0', 'pets', 'list']), 5);
    expect(new Set(server.requests.map((r) => r.headers.authorization))).toEqual(new Set(keys.map((key) => `Bearer ${key}`)));
    expectPrivateAndWhole(dir);

    const listed = await petctl(['profile', 'list', '-o', 'json']);
    expect((JSON.parse(listed.stdout) as Array<{ name: string }>).map((p) => p.name).sort()).toEqual(['sandbox', ...keys.map((_, i) => `p${i}`)].sort());
    const stored = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, { apiKey?: string }> };
    for (const [i, key] of keys.entries()) expect(stored.profiles[`p${i}`]?.apiKey, `p${i}`).toBe(key);
    for (const result of await allAtOnce((i) => petctl(['-p', `p${i}`, '--max-wait', '0', 'pets', 'list']), 5)) expect(result.stderr).toMatch(/nothing sent/);
    expect(server.requests).toHaveLength(PROCESSES);
    expectPrivateAndWhole(dir);
  });

  it('pets add on the built-in sandbox profile, each process its own server on one data file: every animal there once, ids 13-32, every request counted once', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    const env = { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-pro' };
    const results = await allAtOnce((i) => runCli(['pets', 'add', '--name', `parallel-${i}`, '--category-id', '3', '--status', 'available', '-o', 'json'], { env, timeoutMs: 60_000 }));
    for (const result of results) expect(result.stderr).toBe('');
    const created = results.map((result) => parseJson(result.stdout) as { id: number; name: string });
    expect(created.map((pet) => pet.id).sort((a, b) => a - b)).toEqual(Array.from({ length: PROCESSES }, (_, i) => 13 + i));

    const dataFile = path.join(dir, 'sandbox-data.json');
    const stored = storedPets(dataFile);
    expect(stored).toHaveLength(12 + PROCESSES);
    for (const pet of created) expect(stored.filter((entry) => entry.id === pet.id)).toEqual([pet]);
    expect((await runCli(['pets', 'list', '--limit', '100'], { env })).stdout.trim().split('\n')).toHaveLength(12 + PROCESSES);

    const limits = JSON.parse(fs.readFileSync(`${dataFile}.limits.json`, 'utf8')) as { processes: number[]; rateLimits: Record<string, { minuteCount: number }> };
    expect(limits.processes).toEqual([]);
    expect(limits.rateLimits['sandbox-pro']?.minuteCount).toBe(PROCESSES + 1);
    expectPrivateAndWhole(dir);
  });
});
