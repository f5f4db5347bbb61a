import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type CliResult, NODE, cleanEnv, runCli, tempConfigDir } from '../helpers/cli';
import { type RedisServer, noRedisServer, startRedisServer } from '../helpers/redis-server';
import { storedPets } from '../helpers/sandbox-data';

/**
 * Two bulk imports at once, one per machine, on one key at a plan's limit:
 * at most two 429s together, no ban, every row created once.
 * Two config directories stand for two machines; both share one redis-server
 * and one `petctl sandbox` (its Free key, its minute shortened).
 *
 * It drives `petctl pets add --file <path> -o ndjson`; should `pets add --help`
 * not list `--file`, this file skips, saying why.
 */

const hasBulkImport = (() => {
  const help = spawnSync(NODE, [BIN, 'pets', 'add', '--help'], { encoding: 'utf8', env: cleanEnv() });
  return /--file\b/.test(help.stdout);
})();

const ROWS_PER_MACHINE = 90;
const MINUTE_MS = 3_000;

describe.skipIf(noRedisServer || !hasBulkImport)('two bulk imports on two machines sharing a Redis state store', () => {
  let redis: RedisServer;
  let sandbox: ChildProcess;
  let baseUrl: string;
  let sandboxLog = '';
  const dirs: string[] = [];
  let dataFile: string;

  beforeAll(async () => {
    redis = await startRedisServer();
    const sandboxDir = tempConfigDir();
    dirs.push(sandboxDir);
    dataFile = path.join(sandboxDir, 'sandbox-data.json');
    sandbox = spawn(NODE, [BIN, 'sandbox', '--port', '0', '--minute-ms', String(MINUTE_MS), '--data', dataFile], {
      env: cleanEnv({ PETCTL_CONFIG_DIR: sandboxDir }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    sandbox.stderr!.setEncoding('utf8').on('data', (chunk: string) => (sandboxLog += chunk));
    baseUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      sandbox.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const first = out.split('\n')[0]!;
        if (out.includes('\n')) resolve(first.trim());
      });
      sandbox.once('exit', (code) => reject(new Error(`petctl sandbox exited with ${code}: ${sandboxLog}`)));
    });
  });

  afterAll(async () => {
    if (sandbox && sandbox.exitCode === null) {
      sandbox.kill('SIGINT');
      await new Promise((resolve) => sandbox.once('exit', resolve));
    }
    await redis?.stop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('get at most two 429s together, no ban, and create every row once', { timeout: 180_000 }, async () => {
    const machines = ['a', 'b'].map((tag) => {
      const configDir = tempConfigDir();
      dirs.push(configDir);
      const rows = path.join(configDir, `rows-${tag}.ndjson`);
      fs.writeFileSync(rows, Array.from({ length: ROWS_PER_MACHINE }, (_, i) => JSON.stringify({ name: `${tag}-${i}`, categoryId: 1 })).join('\n') + '\n');
      const env = { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: 'sandbox-free', PETCTL_STATE_URL: `redis://127.0.0.1:${redis.port}/0` };
      return { tag, rows, env };
    });
    const mark = sandboxLog.length;

    const results: CliResult[] = await Promise.all(
      machines.map((m) => runCli(['--base-url', baseUrl, 'pets', 'add', '--file', m.rows, '-o', 'ndjson'], { env: m.env, timeoutMs: 170_000 })),
    );

    for (const result of results) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/^warning: /m);
      const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { ok: boolean });
      expect(lines).toHaveLength(ROWS_PER_MACHINE);
      expect(lines.every((line) => line.ok)).toBe(true);
    }
    // The sandbox logs one line per request: "<METHOD> <url> <status> <plan> <ms>ms".
    const statuses = sandboxLog
      .slice(mark)
      .split('\n')
      .map((line) => /^(GET|POST) \S+ (\d{3}) /.exec(line)?.[2])
      .filter((status) => status !== undefined);
    expect(statuses.filter((status) => status === '429').length).toBeLessThanOrEqual(2);
    expect(sandboxLog).not.toMatch(/key_banned/);

    // Every row once, from the sandbox's own records (the API lists at most 100 a page).
    const names = storedPets(dataFile).map((pet) => pet.name).filter((name) => /^[ab]-\d+$/.test(name));
    const expected = machines.flatMap((m) => Array.from({ length: ROWS_PER_MACHINE }, (_, i) => `${m.tag}-${i}`));
    expect(names.sort()).toEqual(expected.sort());
  });
});
