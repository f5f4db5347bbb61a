import { isIP } from 'node:net';
import type { Redis } from 'ioredis';
import type { StateStoreAddress } from '../../config/state-url';
import { type LimitEntry, latestTime, mergeEntries, readEntry, shiftEntry } from './entry';
import { type LimitChange, type LimitStore, droppedTimesWarning } from './store';
import { StoreTimeout, describeStoreError, timeReplyMs, withTimeout } from './redis-failures';

/**
 * The rate-limit record in a Redis server, so every machine on one base URL
 * and key draws from one budget (docs/shared-state.md has the whole design).
 * Atomicity: WATCH GET, the gate's change, MULTI SET EXEC, again on a
 * conflict; WATCH belongs to a connection, so a process's calls take turns on
 * its one connection. Clocks: stored times are on Redis's clock (TIME, read at
 * connect), converted both ways. Failure: slow is waited for (NO_ANSWER_MS);
 * a connection error, or no answer past it, means this machine's state file
 * for the rest of the run, merged with the record as last read, and every
 * request a probe (GateOptions.solo), so machines that fell back side by
 * side cannot spend a window again.
 */

/** How long connecting (with AUTH, SELECT and TIME), or any one command, may go without an answer. */
export const NO_ANSWER_MS = 10_000;
export const KEY_PREFIX = 'petctl:limit:';
/** How long an entry outlives its latest time. */
export const EXPIRE_MARGIN_MS = 60_000;
/** Conflicting updates one call retries before it gives up (and the run falls back). */
const MAX_CONFLICTS = 200;

export interface RedisStoreOptions {
  /** Where the server is, from a validated redis:// or rediss:// URL (config/state-url.ts's stateStoreAddress). */
  address: StateStoreAddress;
  /** The URL as warnings and traces show it, without its password (describeStateUrl). */
  where: string;
  /** The password to use instead of the URL's (PETCTL_STATE_PASSWORD, or the profile's stored one). */
  password?: string;
  /** limitId(base URL, key). */
  id: string;
  /** This machine's state file: the mirror of answers, and the fallback. */
  local: LimitStore;
  now: () => number;
  /** `warning: …` on stderr (silent with -q). */
  warn: (message: string) => void;
  /** -v: one line per state-store call. */
  trace?: (line: string) => void;
  connectTimeoutMs?: number;
  commandTimeoutMs?: number;
}

export interface RedisStore extends LimitStore {
  /** Closes the connection; safe to call more than once. */
  close(): Promise<void>;
  /** Redis's clock minus this machine's, in ms (undefined before connect or after falling back). */
  readonly clockOffsetMs: number | undefined;
  /** True once the store uses the local state file. */
  readonly fellBack: boolean;
  /** The local state file while Redis is in use (the gate records every answer there too); undefined after the fallback. */
  mirror(): LimitStore | undefined;
}

/** How long Redis keeps an entry: until a margin past its latest time (on the same clock as `now`). */
export function expiryMs(entry: LimitEntry, now: number): number {
  return Math.max(0, Math.ceil(latestTime(entry) - now)) + EXPIRE_MARGIN_MS;
}

/** A stored record on Redis's clock (`now` too); `dropped` names what was not plausible. */
function parseStored(raw: string | null, now: number, dropped: string[]): LimitEntry | undefined {
  if (raw === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    // A damaged record only holds timings: treat it as absent; the next write replaces it.
    dropped.push('the record');
    return undefined;
  }
  return readEntry(value, now, dropped);
}

export async function openRedisStore(options: RedisStoreOptions): Promise<RedisStore> {
  const connectTimeoutMs = options.connectTimeoutMs ?? NO_ANSWER_MS;
  const commandTimeoutMs = options.commandTimeoutMs ?? NO_ANSWER_MS;
  const { local, now, trace } = options;
  const { address, where } = options;
  const password = options.password ?? address.password;
  const key = `${KEY_PREFIX}${options.id}`;

  let client: Redis | undefined;
  let offset: number | undefined;
  let fellBack = false;
  let lastError: unknown;
  /** The shared entry as last read or written (on this machine's clock): what a fallback starts from. */
  let lastSeen: LimitEntry | undefined;
  // One call at a time on the connection: WATCH is per connection.
  let turn: Promise<unknown> = Promise.resolve();

  const fallBack = (error: unknown, timeoutMs: number) => {
    if (fellBack) return;
    fellBack = true;
    offset = undefined;
    // The error event often says more than the rejection ("Connection is closed").
    let reason = describeStoreError(lastError !== undefined && !(error instanceof StoreTimeout) ? lastError : error, timeoutMs);
    // No known error repeats the password; should one ever, it still never reaches the terminal.
    if (password) reason = reason.split(password).join('****');
    options.warn(`cannot use the shared rate-limit state at ${where}: ${reason}; using this machine's state file for the rest of this run`);
    client?.disconnect();
  };

  const started = now();
  try {
    const { Redis: RedisClient } = await import('ioredis');
    client = new RedisClient({
      host: address.host,
      port: address.port,
      username: address.username,
      password,
      // SNI takes a host name only (RFC 6066); certificates of an IP address are still checked.
      tls: address.tls ? { servername: isIP(address.host) ? undefined : address.host } : undefined,
      lazyConnect: true,
      connectTimeout: connectTimeoutMs,
      commandTimeout: commandTimeoutMs,
      // No reconnecting and no queueing: a lost connection means the fallback, at once.
      retryStrategy: () => null,
      reconnectOnError: () => false,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      enableAutoPipelining: false,
      connectionName: 'petctl',
    });
    // Without a listener ioredis prints errors itself; they are reported by the warning instead.
    client.on('error', (error) => {
      lastError = error;
    });
    const redis = client;
    await withTimeout(
      (async () => {
        await redis.connect();
        // Selected here, not through ioredis's `db` option: ioredis ignores a failed SELECT and stays on database 0.
        if (address.db !== 0) await redis.select(address.db);
        const before = now();
        const redisNow = timeReplyMs(await redis.time());
        const after = now();
        offset = Math.round(redisNow - (before + after) / 2);
      })(),
      connectTimeoutMs,
    );
    trace?.(`state-store: connect ${where} -> ok in ${now() - started} ms (clock offset ${offset! >= 0 ? '+' : ''}${offset} ms)`);
  } catch (error) {
    trace?.(`state-store: connect ${where} -> failed in ${now() - started} ms`);
    fallBack(error, connectTimeoutMs);
  }

  const timed = <T>(promise: Promise<T>) => withTimeout(promise, commandTimeoutMs);

  let warnedDropped = false;
  /** The shared entry on this machine's clock, warning once about times it had to drop. */
  const readShared = (stored: string | null): LimitEntry | undefined => {
    const dropped: string[] = [];
    const entry = shiftEntry(parseStored(stored, now() + offset!, dropped), -offset!);
    if (dropped.length > 0 && !warnedDropped) {
      warnedDropped = true;
      options.warn(droppedTimesWarning(dropped, `${where} (${key})`));
    }
    return entry;
  };

  /** Runs `change` on the shared entry atomically; the entry `change` sees and returns is on this machine's clock. */
  const transact = async <T>(what: string, change: LimitChange<T>): Promise<T> => {
    const redis = client!;
    const at = now();
    let conflicts = 0;
    for (;;) {
      const replies = await timed(redis.pipeline().watch(key).get(key).exec());
      const failed = replies?.find(([error]) => error);
      if (!replies || failed) throw failed?.[0] ?? new Error('no reply');
      const stored = (replies[1]?.[1] ?? null) as string | null;
      lastSeen = readShared(stored);
      const { entry, result } = change(lastSeen);
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
        trace?.(
          `state-store: ${what} WATCH GET MULTI SET PX ${ttl} EXEC ${key} -> ${outcome(result)}${conflicts ? ` after ${conflicts} conflicts` : ''} in ${now() - at} ms`,
        );
        return result;
      }
      // Another client changed the entry first: compute again from its value.
      conflicts += 1;
      if (conflicts >= MAX_CONFLICTS) throw new Error(`${conflicts} conflicting updates in a row`);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(conflicts, 10)));
    }
  };

  /** One call: on Redis while it works, else (and from then on) on the local file. */
  const run = <T>(what: string, onRedis: () => Promise<T>, onLocal: () => Promise<T>): Promise<T> => {
    const call = turn.then(async () => {
      if (fellBack || !client) return onLocal();
      try {
        return await onRedis();
      } catch (error) {
        trace?.(`state-store: ${what} -> failed: ${describeStoreError(error, commandTimeoutMs)}`);
        fallBack(error, commandTimeoutMs);
        if (lastSeen) {
          const seen = lastSeen;
          await local.update((entry) => ({ entry: mergeEntries(entry, seen), result: undefined }));
        }
        return onLocal();
      }
    });
    turn = call.catch(() => {});
    return call;
  };

  return {
    get clockOffsetMs() {
      return offset;
    },
    get fellBack() {
      return fellBack;
    },
    mirror: () => (fellBack ? undefined : local),
    update: (change, what = 'update') => run(what, () => transact(what, change), () => local.update(change)),
    read() {
      return run(
        'current',
        async () => {
          lastSeen = readShared(await timed(client!.get(key)));
          return lastSeen;
        },
        () => local.read(),
      );
    },
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
