import { isIP } from 'node:net';
import type { Redis } from 'ioredis';
import type { StateStoreAddress } from '../../config/state-url';
import { InterruptedError } from '../../errors';
import { untilAborted } from '../clock';
import { type LimitEntry, latestTime, mergeEntries, readEntry, shiftEntry } from './entry';
import type { LimitChange, LimitStore, StoreReport } from './store';
import { StoreContention, StoreTimeout, storeFailure, timeReplyMs, withTimeout } from './redis-failures';

/** The record in Redis, shared by every machine on one base URL and key (docs/shared-state.md). An error, or no answer
 * within NO_ANSWER_MS, means the state file for the rest of the run and every request a probe (GateOptions.shared):
 * machines that fell back cannot spend a window again. */

/** How long connecting (with AUTH, SELECT and TIME), or any one command, may go without an answer. */
const NO_ANSWER_MS = 10_000;
export const KEY_PREFIX = 'petctl:limit:';
/** How long a record outlives its latest time. */
export const EXPIRE_MARGIN_MS = 60_000;
/** Conflicting updates one call retries before it gives up (and the run falls back). */
const MAX_CONFLICTS = 200;

interface RedisStoreOptions {
  address: StateStoreAddress;
  /** The URL without its password. */
  where: string;
  /** Instead of the URL's (PETCTL_STATE_PASSWORD, or the profile's stored one). */
  password?: string;
  id: string;
  /** This machine's state file: the mirror of answers, and the fallback. */
  local: LimitStore;
  now: () => number;
  report: StoreReport;
  trace?: (line: string) => void;
  noAnswerMs?: number;
  /** Ctrl-C: a call in flight is given up at once (one started after it, such as the release of slots, is not). */
  signal?: AbortSignal;
}

export type RedisStore = Awaited<ReturnType<typeof openRedisStore>>;

/** How long Redis keeps a record (`now` on the record's clock). */
export function expiryMs(entry: LimitEntry, now: number): number {
  return Math.max(0, Math.ceil(latestTime(entry) - now)) + EXPIRE_MARGIN_MS;
}

export async function openRedisStore(options: RedisStoreOptions) {
  const { address, where, local, now, report, trace, noAnswerMs = NO_ANSWER_MS, signal } = options;
  const password = options.password ?? address.password;
  const key = `${KEY_PREFIX}${options.id}`;
  /** None once the run has fallen back. */
  let client: Redis | undefined;
  let offset: number | undefined;
  let lastError: unknown;
  /** The shared record as last read or written (on this machine's clock): what a fallback starts from. */
  let lastSeen: LimitEntry | undefined;
  let reportedDropped = false;
  // One call at a time on the connection: WATCH is per connection.
  let turn: Promise<unknown> = Promise.resolve();
  const timed = <T>(promise: Promise<T>) => {
    const bounded = withTimeout(promise, noAnswerMs);
    return signal && !signal.aborted ? untilAborted(bounded, signal, () => new InterruptedError()) : bounded;
  };

  const fallBack = (error: unknown) => {
    // The error event often says more than the rejection ("Connection is closed").
    const own = error instanceof StoreTimeout || error instanceof StoreContention;
    const cause = lastError !== undefined && !own ? lastError : error;
    report({ kind: 'fallback', where, failure: storeFailure(cause, noAnswerMs, password) });
    client?.disconnect();
    client = undefined;
  };

  const started = now();
  try {
    const { Redis: RedisClient } = await import('ioredis');
    const redis = new RedisClient({
      host: address.host,
      port: address.port,
      username: address.username,
      password,
      // SNI takes a host name only (RFC 6066); certificates of an IP address are still checked.
      tls: address.tls ? { servername: isIP(address.host) ? undefined : address.host } : undefined,
      lazyConnect: true,
      connectTimeout: noAnswerMs,
      commandTimeout: noAnswerMs,
      // No reconnecting and no queueing: a lost connection means the fallback, at once.
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      connectionName: 'petctl',
    });
    client = redis;
    // Without a listener ioredis prints errors itself; the fallback notice reports them instead.
    redis.on('error', (error) => {
      lastError = error;
    });
    const connect = async () => {
      await redis.connect();
      // Selected here, not through ioredis's `db` option: ioredis ignores a failed SELECT and stays on database 0.
      if (address.db !== 0) await redis.select(address.db);
      const before = now();
      const redisNow = timeReplyMs(await redis.time());
      offset = Math.round(redisNow - (before + now()) / 2);
    };
    await timed(connect());
    trace?.(`state-store: connect ${where} -> ok in ${now() - started} ms (clock offset ${offset! >= 0 ? '+' : ''}${offset} ms)`);
  } catch (error) {
    if (error instanceof InterruptedError) {
      // Ctrl-C while connecting: no fallback and no warning; the command ends with 130.
      client?.disconnect();
      throw error;
    }
    trace?.(`state-store: connect ${where} -> failed in ${now() - started} ms`);
    fallBack(error);
  }

  /** The shared record on this machine's clock (remembered as lastSeen). */
  const readShared = (stored: string | null): LimitEntry | undefined => {
    const dropped: string[] = [];
    let value: unknown;
    try {
      value = stored === null ? undefined : JSON.parse(stored);
    } catch {
      // A damaged record only holds timings: treat it as absent; the next write replaces it.
      dropped.push('the record');
    }
    lastSeen = shiftEntry(readEntry(value, now() + offset!, dropped), -offset!);
    if (dropped.length > 0 && !reportedDropped) {
      reportedDropped = true;
      report({ kind: 'dropped', fields: dropped, where: `${where} (${key})` });
    }
    return lastSeen;
  };

  /** Runs `change` atomically: WATCH GET, the change, MULTI SET EXEC, again on a conflict. */
  const transact = async <T>(redis: Redis, what: string, change: LimitChange<T>): Promise<T> => {
    const at = now();
    for (let conflicts = 0; ; ) {
      const watched = await timed(redis.pipeline().watch(key).get(key).exec());
      const failed = watched?.find(([error]) => error);
      if (!watched || failed) throw failed?.[0] ?? new Error('no reply');
      const { entry, result } = change(readShared((watched[1]?.[1] ?? null) as string | null));
      if (!entry) {
        // Nothing to write; the UNWATCH goes out before the next call's WATCH on this connection.
        redis.unwatch().catch(() => {});
        trace?.(`state-store: ${what} WATCH GET ${key} -> ${outcome(result)}, nothing written in ${now() - at} ms`);
        return result;
      }
      const shared = shiftEntry(entry, offset!)!;
      const ttl = expiryMs(shared, now() + offset!);
      const exec = await timed(redis.multi().set(key, JSON.stringify(shared), 'PX', ttl).exec());
      if (exec !== null) {
        const error = exec.find(([failure]) => failure)?.[0];
        if (error) throw error;
        lastSeen = entry;
        const after = conflicts ? ` after ${conflicts} conflicts` : '';
        trace?.(`state-store: ${what} WATCH GET MULTI SET PX ${ttl} EXEC ${key} -> ${outcome(result)}${after} in ${now() - at} ms`);
        return result;
      }
      // Another client changed the record first: compute again from its value.
      conflicts += 1;
      if (conflicts >= MAX_CONFLICTS) throw new Error(`${conflicts} conflicting updates in a row`);
      // A slow store loses every race to a crowd on it: an update that cannot land is no answer either.
      if (now() - at >= noAnswerMs) throw new StoreContention();
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(conflicts, 10)));
    }
  };

  /** On Redis while it works, else (and from then on) on the local file. */
  const run = <T>(what: string, onRedis: (redis: Redis) => Promise<T>, onLocal: () => Promise<T>): Promise<T> => {
    const call = turn.then(async () => {
      if (!client) return onLocal();
      try {
        return await onRedis(client);
      } catch (error) {
        if (error instanceof InterruptedError) throw error;
        report({ kind: 'failed', what, failure: storeFailure(error, noAnswerMs, password) });
        fallBack(error);
        if (lastSeen) await local.update((entry) => ({ entry: mergeEntries(entry, lastSeen), result: undefined }));
        return onLocal();
      }
    });
    turn = call.catch(() => {});
    return call;
  };

  return {
    get fellBack() {
      return !client;
    },
    /** The local state file while Redis is in use: the gate records every answer there too. */
    mirror: () => (client ? local : undefined),
    update: <T>(change: LimitChange<T>, what = 'update') => run(what, (redis) => transact(redis, what, change), () => local.update(change)),
    read: () => run('current', async (redis) => readShared(await timed(redis.get(key))), () => local.read()),
    /** Safe to call more than once. */
    async close() {
      await turn;
      client?.disconnect();
    },
  };
}

function outcome(result: unknown): string {
  const decision = result as { go?: boolean; reason?: string } | undefined;
  if (decision?.go === undefined) return 'recorded';
  return decision.go ? 'go' : `wait (${decision.reason})`;
}
