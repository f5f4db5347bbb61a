import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { openFileStore } from '../../../src/api/limits/file-store';
import { KEY_PREFIX, type RedisStore, openRedisStore } from '../../../src/api/limits/redis-store';
import { limitId } from '../../../src/api/limits/store';
import { stateStoreLine } from '../../../src/output/state-store';
import { type RedisServer, noRedisServer, redisAt, startRedisServer } from '../../helpers/redis-server';
import { limitStoreContract } from './store-contract';

const BASE = 'https://api.example.org/v1';

let redis: RedisServer | undefined;
let admin: Redis | undefined;
const stores: RedisStore[] = [];
const dirs: string[] = [];
beforeAll(async () => {
  if (noRedisServer) return;
  redis = await startRedisServer();
  admin = new Redis(redis.url);
});
afterAll(async () => {
  admin?.disconnect();
  await redis?.stop();
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

limitStoreContract(
  'Redis',
  async () => {
    // Each test its own key: one server serves them all.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-contract-'));
    dirs.push(dir);
    const apiKey = `pk_test_contract_${path.basename(dir)}`;
    const id = await limitId(BASE, apiKey);
    let machines = 0;
    return {
      acrossMachines: true,
      // A clock offset is measured to half a round trip on loopback.
      toleranceMs: 50,
      async open({ skewMs = 0 } = {}) {
        const now = () => Date.now() + skewMs;
        // Each process its own machine: its own state file, its own connection.
        const local = openFileStore(path.join(dir, `state-${(machines += 1)}.json`), BASE, apiKey, now);
        const store = await openRedisStore({ ...redisAt(redis!.url), id, local, now, report: (notice) => { throw new Error(stateStoreLine(notice)); } });
        stores.push(store);
        return { store, now };
      },
      async keptAt(at) {
        const ttl = await admin!.pttl(`${KEY_PREFIX}${id}`);
        return ttl > at - Date.now();
      },
    };
  },
  { skip: noRedisServer },
);
