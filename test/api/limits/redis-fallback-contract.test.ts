import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { openFileStore } from '../../../src/api/limits/file-store';
import { type RedisStore, openRedisStore } from '../../../src/api/limits/redis-store';
import { limitId } from '../../../src/api/limits/store';
import { redisAt } from '../../helpers/redis-server';
import { type RedisServer, noRedisServer, startRedisServer } from '../../helpers/redis-server';
import { limitStoreContract } from './store-contract';

/**
 * Redis that goes away mid-run: each test's first write reaches Redis, then
 * the server is killed, and everything after runs on this machine's state
 * file: the writer's own reads (its fallback merges what it last saw of Redis
 * into the file) and every process started after (which cannot connect).
 */

const BASE = 'https://api.example.org/v1';
const KEY = 'pk_test_contract_fallback';

const servers: RedisServer[] = [];
const stores: RedisStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const server of servers.splice(0)) await server.stop();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

limitStoreContract(
  'Redis falling back to the state file',
  async () => {
    const redis = await startRedisServer();
    servers.push(redis);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-contract-'));
    dirs.push(dir);
    const file = path.join(dir, 'state.json');
    const id = await limitId(BASE, KEY);
    return {
      acrossMachines: false,
      toleranceMs: 0,
      async open({ skewMs = 0 } = {}) {
        const now = () => Date.now() + skewMs;
        const store = await openRedisStore({ ...redisAt(redis.url), id, local: openFileStore(file, BASE, KEY, now), now, report: () => {}, noAnswerMs: 500 });
        stores.push(store);
        return { store, now };
      },
      async keptAt(at) {
        await openFileStore(file, BASE, 'another key', () => at).update(() => ({ entry: { probeUntil: at + 1_000 }, result: undefined }));
        return (await openFileStore(file, BASE, KEY, () => at).read()) !== undefined;
      },
      // The writer learns of it at its next call, and leaves what it last saw of Redis in the file.
      async afterFirstWrite(writer) {
        await redis.kill();
        await writer.store.read();
      },
    };
  },
  { skip: noRedisServer },
);
