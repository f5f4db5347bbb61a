import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_PREFIX } from '../../src/api/limits/redis-store';
import { MAX_STORED_AHEAD_MS } from '../../src/api/limits/entry';
import { limitId } from '../../src/api/limits/store';
import { type CliResult, expectCleanError, setupE2e } from '../helpers/cli';
import { GARBAGE_TIME_REPLIES, startFakeRedis } from '../helpers/fake-redis';
import { type RedisServer, noRedisServer, startRedisServer } from '../helpers/redis-server';
import { json } from '../helpers/scripted-server';

/**
 * Times read from the state file or the shared store are checked: a planted
 * blockedUntil (not a number, or beyond what the service could have said) is
 * dropped with one warning, never waited for, never printed. The built binary
 * against a scripted server, with state.json written by hand or a value SET in
 * a real redis-server.
 */

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const PLANTED: Array<[string, () => unknown]> = [
  ['1e300', () => 1e300],
  ['"NaN"', () => 'NaN'],
  ['a string', () => 'next week'],
  ['a negative', () => -86_400_000],
  ['beyond now + a day + the longest wait the service can ask for', () => Date.now() + MAX_STORED_AHEAD_MS + 60_000],
];

function expectProceeded(result: CliResult): void {
  expect(result.code, result.stderr).toBe(0);
  const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning: '));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/^warning: ignored blockedUntil in the rate-limit state at .*: not a time petctl could have stored/);
  expect(result.stdout + result.stderr).not.toMatch(/NaN|Invalid|e\+\d|banned until|Try again/);
}

describe.concurrent('a planted blockedUntil in state.json', () => {
  it.for(PLANTED)('%s: the command proceeds, one warning, nothing printed of it', async ([, planted], t) => {
    const { server, key, configDir, petctl } = await setupE2e(t, json(200, [PET]));
    const id = await limitId(server.baseUrl, key);
    fs.writeFileSync(path.join(configDir, 'state.json'), JSON.stringify({ version: 1, limits: { [id]: { blockedUntil: planted(), reason: 'key_banned' } } }), { mode: 0o600 });
    // profile show only reads; pets list then writes its claim, and the planted value is gone from the file.
    const shown = await petctl(['profile', 'show']);
    expect(shown.stdout).toContain('none seen on this machine');
    expectProceeded(shown);
    expectProceeded(await petctl(['pets', 'list']));
    expect(server.requests).toHaveLength(1);
  });
});

describe.skipIf(noRedisServer)('a planted blockedUntil in the shared Redis', () => {
  let redis: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    redis = await startRedisServer();
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  it.for(PLANTED)('%s: every client proceeds, one warning each, nothing printed of it', async ([, planted], t) => {
    const { server, key, petctl } = await setupE2e(t, json(200, [PET]));
    const stored = `${KEY_PREFIX}${await limitId(server.baseUrl, key)}`;
    for (const args of [['pets', 'list'], ['pets', 'add', '--name', 'Rex', '--category-id', '1']]) {
      // Each client's claim replaces the planted value: it is planted again for the next.
      await client.set(stored, JSON.stringify({ blockedUntil: planted(), reason: 'key_banned' }));
      server.reply(args[1] === 'add' ? json(201, PET) : json(200, [PET]));
      expectProceeded(await petctl(['-v', ...args], { env: { PETCTL_STATE_URL: redis.url } }));
    }
    expect(server.requests).toHaveLength(2);
  });
});

describe.concurrent('a TIME reply that is not two integers', () => {
  it.for(Object.entries(GARBAGE_TIME_REPLIES))('%s: the store is not used for the command, one warning as for a store that is down', async ([, reply], t) => {
    const fake = await startFakeRedis(reply);
    try {
      const { server, petctl } = await setupE2e(t, json(200, [PET]));
      const result = await petctl(['-v', 'pets', 'list'], { env: { PETCTL_STATE_URL: fake.url } });
      expect(result.code, result.stderr).toBe(0);
      const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning: '));
      expect(warnings).toEqual([
        `warning: cannot use the shared rate-limit state at ${fake.url}: its TIME reply is not two integers; using this machine's state file for the rest of this run`,
      ]);
      expect(result.stderr).not.toMatch(/NaN|clock offset/);
      expect(fake.commands.filter((name) => name === 'WATCH' || name === 'MULTI')).toEqual([]);
      expect(server.requests).toHaveLength(1);
      expectCleanError({ ...result, stdout: '' });
    } finally {
      await fake.close();
    }
  });
});
