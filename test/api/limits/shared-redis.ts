import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type RedisServer, noRedisServer, startRedisServer } from '../../helpers/redis-server';

/** One redis-server for a test file (none where redis-server is missing), emptied after each test. */
export function sharedRedis(): { server: RedisServer; admin: Redis } {
  const shared = {} as { server: RedisServer; admin: Redis };
  beforeAll(async () => {
    if (noRedisServer) return;
    shared.server = await startRedisServer();
    shared.admin = new Redis(shared.server.url);
  });
  afterEach(async () => {
    await shared.admin?.flushall();
  });
  afterAll(async () => {
    shared.admin?.disconnect();
    await shared.server?.stop();
  });
  return shared;
}
