import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openFileStore } from '../../../src/api/limits/file-store';
import { InterruptedError } from '../../../src/errors';
import { openGate } from '../../../src/api/limits/gate';
import { EXPIRE_MARGIN_MS, KEY_PREFIX, type RedisStore, expiryMs, openRedisStore } from '../../../src/api/limits/redis-store';
import { timeReplyMs } from '../../../src/api/limits/redis-failures';
import { limitId } from '../../../src/api/limits/store';
import { stateStoreLine } from '../../../src/output/state-store';
import { startFakeRedis } from '../../helpers/fake-redis';
import { freePort, noRedisServer, redisAt, startRedisServer } from '../../helpers/redis-server';
import { tempDir } from '../../helpers/temp-dir';
import { sharedRedis } from './shared-redis';

const BASE = 'https://api.example.org/v1';
const KEY = 'pk_live_shared_7d2e9c4b1a0f3e8d';
const MINUTE = 60_000;

const stores: RedisStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});
// One redis-server for the file; a test that kills its server or needs a password starts its own.
const shared = sharedRedis();

/** One machine: its own state file, clock and connection; `root` another process's on the same machine. */
async function machine(stateUrl: string, options: { skewMs?: number; noAnswerMs?: number; key?: string; root?: string; signal?: AbortSignal } = {}) {
  const root = options.root ?? tempDir();
  const now = () => Date.now() + (options.skewMs ?? 0);
  const key = options.key ?? KEY;
  const localStore = openFileStore(path.join(root, 'state.json'), BASE, key, now);
  const local = openGate(localStore, { now, probeLeaseMs: 5_000 });
  const warnings: string[] = [];
  const traces: string[] = [];
  const shared = await openRedisStore({
    ...redisAt(stateUrl),
    id: await limitId(BASE, key),
    local: localStore,
    now,
    // Warnings, and a failed call's -v line among the traces, as a session words them.
    report: (notice) => (notice.kind === 'failed' ? traces : warnings).push(stateStoreLine(notice)),
    trace: (line) => traces.push(line),
    noAnswerMs: options.noAnswerMs,
    signal: options.signal,
  });
  stores.push(shared);
  const gate = openGate(shared, { now, probeLeaseMs: 5_000, shared });
  return { gate, shared, local, now, warnings, traces, root };
}

/** A window with `remaining` requests left, as an answer would report it (paced: tracked from the first request). */
function windowAnswer(now: number, remaining: number) {
  const resetAt = now + MINUTE;
  return { status: 200, remaining, reset: Math.ceil(resetAt / 1000), resetAt };
}

describe('expiryMs', () => {
  // Every time moved between clocks (shiftEntry): store-contract.test.ts, 'clocks that disagree see every time as the same moment'.
  it('keeps an entry a margin past its latest time, never less than the margin', () => {
    expect(expiryMs({ blockedUntil: 10_000, window: { reset: 1, resetAt: 40_000, remaining: 1 } }, 0)).toBe(40_000 + EXPIRE_MARGIN_MS);
    expect(expiryMs({ blockedUntil: 10_000, reason: 'rate_limited' }, 50_000)).toBe(EXPIRE_MARGIN_MS);
  });
});

describe.skipIf(noRedisServer)('the rate-limit gate on a real redis-server', () => {
  // Machines whose clocks disagree read the same moments back: store-contract.test.ts (Redis).
  it("stores times on Redis's own clock, not on the machine's", async () => {
    const a = await machine(shared.server.url, { skewMs: 10 * MINUTE });
    await a.gate.record({ status: 429, retryAt: a.now() + 20_000 });
    const [seconds] = await shared.admin.time();
    const stored = JSON.parse((await shared.admin.get(`${KEY_PREFIX}${await limitId(BASE, KEY)}`))!);
    expect(Math.abs(stored.blockedUntil - (Number(seconds) * 1000 + 20_000))).toBeLessThan(2_000);
  });

  it('lets no two machines spend the same remaining request: 6 connections x 40 concurrent paced acquires, 50 left', async () => {
    const machines = await Promise.all(Array.from({ length: 6 }, () => machine(shared.server.url)));
    await machines[0]!.gate.record(windowAnswer(machines[0]!.now(), 50));
    const decisions = await Promise.all(machines.flatMap((m) => Array.from({ length: 40 }, () => m.gate.acquire())));
    expect(decisions.filter((d) => d.go)).toHaveLength(50);
    expect(decisions.filter((d) => !d.go).every((d) => !d.go && d.reason === 'window')).toBe(true);
    expect((await machines[3]!.gate.current())?.window?.remaining).toBe(0);
    for (const m of machines) expect(m.warnings).toEqual([]);
    // Conflicts happened and were retried, not lost.
    expect(machines.flatMap((m) => m.traces).some((line) => /after \d+ conflicts/.test(line))).toBe(true);
  });

  it('stores neither the API key nor anything without a TTL; the key is the hash the local state uses', async () => {
    const a = await machine(shared.server.url);
    await a.gate.record({ status: 429, retryAt: a.now() + 5_000 });
    await a.gate.record(windowAnswer(a.now(), 3));
    const keys = await shared.admin.keys('*');
    expect(keys).toEqual([`${KEY_PREFIX}${await limitId(BASE, KEY)}`]);
    const value = (await shared.admin.get(keys[0]!))!;
    expect(value).not.toContain(KEY);
    expect(keys[0]).not.toContain(KEY);
    const ttl = await shared.admin.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(MINUTE);
    expect(ttl).toBeLessThanOrEqual(MINUTE + EXPIRE_MARGIN_MS + 1_000);
  });

  it('falls back when a command gets no answer in time (the server paused), and warns once', async () => {
    const a = await machine(shared.server.url, { noAnswerMs: 300 });
    await a.local.record({ status: 429, retryAt: a.now() + 30_000 });
    await shared.admin.client('PAUSE', 2_000, 'ALL');
    try {
      const decision = await a.gate.acquire();
      // From the local file, which holds this machine's block.
      expect(decision).toMatchObject({ go: false, reason: 'rate_limited' });
      expect(await a.gate.acquire()).toMatchObject({ go: false });
    } finally {
      await shared.admin.client('UNPAUSE');
    }
    expect(a.shared.fellBack).toBe(true);
    expect(a.warnings).toHaveLength(1);
    expect(a.warnings[0]).toMatch(/^cannot use the shared rate-limit state at redis:\/\/127\.0\.0\.1:\d+\/0: no answer within 0\.3s; using this machine's state file/);
  });
});

describe.skipIf(noRedisServer)('when the shared store fails', () => {
  it('a store that answers slowly is waited for, not given up: a 3 s pause with the default timeouts; Ctrl-C ends the wait', async () => {
    const ctrlC = new AbortController();
    const a = await machine(shared.server.url, { signal: ctrlC.signal });
    await shared.admin.client('PAUSE', 3_000, 'ALL');
    const started = Date.now();
    expect(await a.gate.acquire()).toMatchObject({ go: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_500);
    await shared.admin.client('PAUSE', 3_000, 'ALL');
    setTimeout(() => ctrlC.abort(), 200);
    await expect(a.gate.acquire()).rejects.toBeInstanceOf(InterruptedError);
    expect(a.shared.fellBack).toBe(false);
    expect(a.warnings).toEqual([]);
  });

  it('an update that loses every race for the whole timeout counts as no answer: the fallback, not a wait without end', async () => {
    // EXEC refused every time, as a slow store sees while a crowd keeps changing the record.
    const fake = await startFakeRedis(`*2\r\n$10\r\n${Math.floor(Date.now() / 1000)}\r\n$1\r\n0\r\n`, '*-1\r\n');
    try {
      const a = await machine(fake.url, { noAnswerMs: 300 });
      expect(await a.gate.acquire()).toMatchObject({ go: true });
      expect(a.shared.fellBack).toBe(true);
      expect(a.warnings).toEqual([`cannot use the shared rate-limit state at ${fake.url}: no update within 0.3s; using this machine's state file for the rest of this run`]);
    } finally {
      await fake.close();
    }
  });

  it('after a fallback every request probes: one in flight on the machine, each claiming from the service\'s own count', async () => {
    const nothing = `redis://127.0.0.1:${await freePort()}/0`;
    const a = await machine(nothing);
    const b = await machine(nothing, { root: a.root });
    expect(a.shared.fellBack && b.shared.fellBack).toBe(true);
    expect(a.warnings).toEqual([expect.stringContaining(': connection refused;')]);
    expect(await a.gate.acquire()).toMatchObject({ go: true, entry: { probeUntil: expect.any(Number) } });
    expect(await b.gate.acquire()).toMatchObject({ go: false, reason: 'probe' });
    // The answer names a window with 30 left: still one at a time, each claiming one of them.
    await a.gate.record(windowAnswer(a.now(), 30));
    expect(await b.gate.acquire()).toMatchObject({ go: true, entry: { window: { remaining: 29 } } });
    expect(await a.gate.acquire()).toMatchObject({ go: false, reason: 'probe' });
    // Without a fallback the same window lets both go side by side.
    const c = await machine(shared.server.url);
    await c.gate.record(windowAnswer(c.now(), 30));
    expect([await c.gate.acquire(), await c.gate.acquire()]).toMatchObject([{ go: true }, { go: true }]);
  });

  it('refuses a database the server does not have (rather than using database 0)', async () => {
    const a = await machine(shared.server.url.replace(/\/0$/, '/99'));
    expect(a.shared.fellBack).toBe(true);
    expect(a.warnings).toEqual([expect.stringContaining('/99: ERR DB index is out of range; using this machine')]);
  });

  it("falls back when redis-server is stopped mid-run, and keeps obeying another machine's block it read from Redis", async (t) => {
    const redis = await startRedisServer();
    t.onTestFinished(() => redis.stop());
    const a = await machine(redis.url);
    const b = await machine(redis.url);
    const retryAt = a.now() + 30_000;
    await a.gate.record({ status: 429, retryAt });
    expect(a.shared.fellBack).toBe(false);
    const seen = (await b.gate.acquire()) as { go: false; until: number };
    expect(seen.go).toBe(false);
    await redis.kill();
    // A goes on with what this machine knows, warned once.
    expect(await a.gate.acquire()).toEqual({ go: false, until: retryAt, reason: 'rate_limited' });
    expect(await a.gate.acquire()).toMatchObject({ go: false });
    expect(a.warnings).toEqual([expect.stringMatching(/\/0: (the connection was closed|connection reset);/)]);
    // B's own state file never heard of the 429; what B read from Redis goes with it into the fallback.
    expect(await b.gate.acquire()).toEqual({ go: false, until: seen.until, reason: 'rate_limited' });
    expect(b.warnings).toHaveLength(1);
  });

  it('gives up connecting to a server that never answers within the connect timeout', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const a = await machine(`redis://127.0.0.1:${port}/0`, { noAnswerMs: 300 });
      expect(a.shared.fellBack).toBe(true);
      expect(a.warnings).toEqual([expect.stringContaining(': no answer within 0.3s;')]);
      expect(await a.gate.acquire()).toMatchObject({ go: true });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('says the password was refused, without the password, and falls back', async (t) => {
    const password = 'correct-horse-battery-staple';
    const redis = await startRedisServer({ password });
    t.onTestFinished(() => redis.stop());
    const good = await machine(redis.url);
    expect(good.shared.fellBack).toBe(false);
    const wrong = 'wrong-password-123456';
    const bad = await machine(redis.url.replace(encodeURIComponent(password), wrong));
    const none = await machine(redis.url.replace(`:${encodeURIComponent(password)}@`, ''));
    expect(bad.shared.fellBack).toBe(true);
    expect(bad.warnings).toEqual([expect.stringContaining('refused the user name or password (WRONGPASS)')]);
    expect(none.warnings).toEqual([expect.stringContaining('requires a password (NOAUTH)')]);
    for (const m of [good, bad, none]) {
      for (const line of [...m.warnings, ...m.traces]) {
        expect(line).not.toContain(password);
        expect(line).not.toContain(wrong);
      }
    }
  });
});

describe('what the store says is checked', () => {
  it.each([
    [['1700000000', '123456'], 1_700_000_000_123.456],
    [[1_700_000_000, 0], 1_700_000_000_000],
  ])('timeReplyMs reads %j', (reply, ms) => {
    expect(timeReplyMs(reply)).toBe(ms);
  });

  it.each([[['abc', '1']], [['1700000000']], ['1700000000'], [['1e300', '0']], [['1700000000', '1000000']], [['-1', '0']], [null]])('timeReplyMs refuses %j', (reply) => {
    expect(() => timeReplyMs(reply)).toThrow();
  });

  // Each kind of reply refused is timeReplyMs's table above; here, one of them through the store.
  it('a TIME reply that is not two integers: the store is not used, one warning, the local file instead', async () => {
    // A float where TIME's seconds belong.
    const fake = await startFakeRedis('*2\r\n$6\r\n1e+300\r\n$1\r\n0\r\n');
    try {
      const a = await machine(fake.url);
      expect(fake.commands).toContain('TIME');
      expect(a.shared.fellBack).toBe(true);
      expect(a.warnings).toEqual([`cannot use the shared rate-limit state at ${fake.url}: its TIME reply is not two integers; using this machine's state file for the rest of this run`]);
      expect(await a.gate.acquire()).toMatchObject({ go: true });
    } finally {
      await fake.close();
    }
  });
});

describe('a server at the state URL that is no Redis, or not as the URL says: the warning says which', () => {
  it.for([
    { what: 'an HTTP server', scheme: 'redis', answer: 'HTTP/1.1 400 Bad Request\r\n\r\n', says: "the server does not speak Redis's protocol" },
    { what: 'rediss:// to a server without TLS', scheme: 'rediss', answer: 'HTTP/1.1 400 Bad Request\r\n\r\n', says: 'the server does not speak TLS: try redis:// rather than rediss://' },
    { what: 'one that hangs up at once', scheme: 'redis', answer: undefined, says: /^(the connection was closed|connection reset by the server)$/ },
  ])('$what', async ({ scheme, answer, says }) => {
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      if (answer === undefined) socket.destroy();
      else socket.once('data', () => socket.end(answer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `${scheme}://127.0.0.1:${(server.address() as net.AddressInfo).port}/0`;
    try {
      const a = await machine(url);
      expect(a.shared.fellBack).toBe(true);
      expect(a.warnings).toHaveLength(1);
      const why = a.warnings[0]!.slice(`cannot use the shared rate-limit state at ${url}: `.length).replace(/; using this machine's state file for the rest of this run$/, '');
      expect(why).toMatch(says);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe.skipIf(noRedisServer)('a planted entry in a real Redis', () => {
  // Which values are dropped is readEntry's table (file-store.test.ts); here, that the Redis store reads through it.
  it('a blockedUntil of 1e300 is dropped with one warning: never waited for, and replaced by the next write', async () => {
    const key = `pk_test_planted_${Math.random().toString(36).slice(2)}_0123456789`;
    const id = await limitId(BASE, key);
    await shared.admin.set(`${KEY_PREFIX}${id}`, JSON.stringify({ blockedUntil: 1e300, reason: 'key_banned' }));
    const a = await machine(shared.server.url, { key });
    expect(await a.gate.acquire()).toMatchObject({ go: true });
    expect(await a.gate.current()).toEqual({ probeUntil: expect.any(Number) });
    expect(a.shared.fellBack).toBe(false);
    expect(a.warnings).toEqual([expect.stringMatching(/^ignored blockedUntil in the rate-limit state at redis:\/\/127\.0\.0\.1:\d+\/0 \(petctl:limit:[0-9a-f]+\): not a time petctl could have stored/)]);
    expect(a.warnings.join('')).not.toMatch(/NaN|Infinity|e\+/);
    await a.gate.record({ status: 429, retryAt: a.now() + 5_000 });
    const stored = JSON.parse((await shared.admin.get(`${KEY_PREFIX}${id}`))!);
    expect(stored).toEqual({ blockedUntil: expect.any(Number), reason: 'rate_limited' });
  });
});
