import path from 'node:path';
import { afterEach } from 'vitest';
import { openFileStore } from '../../../src/api/limits/file-store';
import { KEY_PREFIX, type RedisStore, openRedisStore } from '../../../src/api/limits/redis-store';
import { limitId } from '../../../src/api/limits/store';
import { stateStoreLine } from '../../../src/output/state-store';
import { type RedisServer, noRedisServer, redisAt, startRedisServer } from '../../helpers/redis-server';
import { tempDir } from '../../helpers/temp-dir';
import { sharedRedis } from './shared-redis';
import { limitStoreContract } from './store-contract';

/** The LimitStore contract (store-contract.ts) run on each store: the state file, Redis, and Redis that goes away mid-run. */

const BASE = 'https://api.example.org/v1';

const shared = sharedRedis();
const servers: RedisServer[] = [];
const stores: RedisStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const server of servers.splice(0)) await server.stop();
});

/** A folder of its own for each test, and a key named after it: one server serves them all. */
function testDir(): { dir: string; apiKey: string } {
  const dir = tempDir();
  return { dir, apiKey: `pk_test_contract_${path.basename(dir)}` };
}

/** Another key's write at that time is when the file drops what has gone stale. */
async function keptInFile(file: string, apiKey: string, at: number): Promise<boolean> {
  await openFileStore(file, BASE, 'another key', () => at).update(() => ({ entry: { probeUntil: at + 1_000 }, result: undefined }));
  return (await openFileStore(file, BASE, apiKey, () => at).read()) !== undefined;
}

limitStoreContract('the state file', async () => {
  const { dir, apiKey } = testDir();
  const file = path.join(dir, 'state.json');
  return {
    toleranceMs: 0,
    async open({ skewMs = 0 } = {}) {
      const now = () => Date.now() + skewMs;
      return { store: openFileStore(file, BASE, apiKey, now), now };
    },
    keptAt: (at) => keptInFile(file, apiKey, at),
  };
});

limitStoreContract(
  'Redis',
  async () => {
    const { dir, apiKey } = testDir();
    const id = await limitId(BASE, apiKey);
    let machines = 0;
    return {
      // A clock offset is measured to half a round trip on loopback.
      toleranceMs: 50,
      async open({ skewMs = 0 } = {}) {
        const now = () => Date.now() + skewMs;
        // Each process its own machine: its own state file, its own connection.
        const local = openFileStore(path.join(dir, `state-${(machines += 1)}.json`), BASE, apiKey, now);
        const store = await openRedisStore({ ...redisAt(shared.server.url), id, local, now, report: (notice) => { throw new Error(stateStoreLine(notice)); } });
        stores.push(store);
        return { store, now };
      },
      async keptAt(at) {
        const ttl = await shared.admin.pttl(`${KEY_PREFIX}${id}`);
        return ttl > at - Date.now();
      },
    };
  },
  { skip: noRedisServer, acrossMachines: true },
);

/** Each test's first write reaches Redis, which is then killed: what follows runs on this machine's state file. */
limitStoreContract(
  'Redis falling back to the state file',
  async () => {
    const own = await startRedisServer();
    servers.push(own);
    const { dir, apiKey } = testDir();
    const file = path.join(dir, 'state.json');
    const id = await limitId(BASE, apiKey);
    return {
      toleranceMs: 0,
      async open({ skewMs = 0 } = {}) {
        const now = () => Date.now() + skewMs;
        const store = await openRedisStore({ ...redisAt(own.url), id, local: openFileStore(file, BASE, apiKey, now), now, report: () => {}, noAnswerMs: 500 });
        stores.push(store);
        return { store, now };
      },
      keptAt: (at) => keptInFile(file, apiKey, at),
      // The writer learns of it at its next call, and leaves what it last saw of Redis in the file.
      async afterFirstWrite(writer) {
        await own.kill();
        await writer.store.read();
      },
    };
  },
  { skip: noRedisServer },
);
