import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BlockReason, MAX_STORED_AHEAD_MS, readEntry } from '../../../src/api/limits/entry';
import { StateUnwritableError } from '../../../src/errors';
import { openFileStore } from '../../../src/api/limits/file-store';
import { type RateLimitGate, openGate } from '../../../src/api/limits/gate';
import { type StoreNotice, limitId } from '../../../src/api/limits/store';
import { stateStoreLine } from '../../../src/output/state-store';
import { fill, mountSmallDisk, noSmallDisk, unmountSmallDisk } from '../../helpers/small-disk';
import { tempDir } from '../../helpers/temp-dir';

/** The gate over the state file, as a session opens it. */
async function openRateLimitState(file: string, baseUrl: string, apiKey: string, now: () => number, options: { probeLeaseMs?: number; warn?: (message: string) => void } = {}): Promise<RateLimitGate> {
  return openGate(openFileStore(file, baseUrl, apiKey, now, { report: (notice) => options.warn?.(stateStoreLine(notice)) }), { now, probeLeaseMs: options.probeLeaseMs });
}

const BASE = 'https://api.example.org/v1';
const KEY = 'pk_test_4f1c2d9e8b7a6f5e4d3c2b1a';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

/** state.json under a config dir that does not exist yet, as on a first run. */
function stateFile(): string {
  return path.join(tempDir(), 'petctl', 'state.json');
}

function readState(file: string): { version: number; limits: Record<string, { blockedUntil: number; reason: string }> } {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

const clock = (ms: number) => () => ms;

/** What an answer that blocks the key records: a 429 (rate_limited, key_banned), or Remaining: 0 (quota_exhausted). */
function block(gate: RateLimitGate, until: number, reason: BlockReason): Promise<void> {
  if (reason === 'quota_exhausted') return gate.record({ status: 200, remaining: 0, reset: Math.ceil(until / 1000), resetAt: until });
  return gate.record({ status: 429, retryAt: until, banned: reason === 'key_banned' });
}

describe('limitId', () => {
  // The newline keeps text moved between the base URL and the key from giving the same id.
  it('is the first half of SHA-256 over "<base URL>\\n<key>", as earlier versions wrote it', async () => {
    const { createHash } = await import('node:crypto');
    for (const [base, key] of [[BASE, KEY], ['http://127.0.0.1:4010/v1', 'sandbox-free'], ['https://ü.example/v1', 'ключ']]) {
      expect(await limitId(base!, key!)).toBe(createHash('sha256').update(`${base}\n${key}`).digest('hex').slice(0, 32));
    }
  });
});

describe('the persisted rate-limit gate', () => {
  it('writes nothing on a first run, then a private file that holds neither the key nor the base URL', async () => {
    const file = stateFile();
    const gate = await openRateLimitState(file, BASE, KEY, clock(NOW));
    expect(await gate.current()).toBeUndefined();
    expect(fs.existsSync(file)).toBe(false);
    await block(gate, NOW + 5000, 'key_banned');

    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('example.org');
    expect(readState(file)).toEqual({ version: 1, limits: { [await limitId(BASE, KEY)]: { blockedUntil: NOW + 5000, reason: 'key_banned' } } });
    if (process.platform !== 'win32') {
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    }
    expect(fs.readdirSync(path.dirname(file))).toEqual(['state.json']);
  });

  it.each([
    { what: 'not JSON', text: () => 'not json at all' },
    { what: 'truncated JSON', text: () => '{"version":1,"limits":{"ab' },
    { what: 'an empty file', text: () => '' },
    {
      what: 'an entry of the wrong shape',
      text: (id: string) => JSON.stringify({ version: 1, limits: { [id]: { blockedUntil: 'tomorrow', reason: 'rate_limited' } } }),
    },
    { what: 'limits of the wrong shape', text: () => JSON.stringify({ version: 1, limits: [1, 2, 3] }) },
  ])('starts afresh from a damaged file ($what) instead of failing every command', async ({ text }) => {
    const file = stateFile();
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, text(await limitId(BASE, KEY)), { mode: 0o600 });

    const gate = await openRateLimitState(file, BASE, KEY, clock(NOW));
    expect(await gate.current()).toBeUndefined();
    await block(gate, NOW + 1000, 'rate_limited');
    expect(Object.values(readState(file).limits)).toEqual([{ blockedUntil: NOW + 1000, reason: 'rate_limited' }]);
  });

  it('reads a planted __proto__ id as an ordinary id and drops a time past 2^53; its own entry is kept and written', async () => {
    const file = stateFile();
    const id = await limitId(BASE, KEY);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const own = `"${id}": { "blockedUntil": ${NOW + 500}, "reason": "rate_limited" }`;
    fs.writeFileSync(file, `{ "version": 1, "limits": { "__proto__": { "blockedUntil": ${NOW + 900}, "reason": "key_banned" }, "ffff": { "blockedUntil": 90071992547409930, "reason": "rate_limited" }, ${own} } }`, { mode: 0o600 });
    const gate = await openRateLimitState(file, BASE, KEY, clock(NOW));
    expect(await gate.current()).toEqual({ blockedUntil: NOW + 500, reason: 'rate_limited' });
    await block(gate, NOW + 700, 'rate_limited');
    const written = readState(file);
    expect(written.limits[id]).toMatchObject({ blockedUntil: NOW + 700, reason: 'rate_limited' });
    expect(Object.getPrototypeOf(written.limits)).toBe(Object.prototype);
    expect(Object.keys(written.limits)).not.toContain('ffff');
  });
});

describe('claims in blocks', () => {
  const resetAt = NOW + 30_000;
  const seeded = async () => {
    const file = stateFile();
    const clockAt = { ms: NOW };
    const gate = openGate(openFileStore(file, BASE, KEY, () => clockAt.ms), { now: () => clockAt.ms });
    await gate.record({ status: 200, remaining: 100, reset: resetAt / 1000, resetAt });
    return { file, clockAt, gate };
  };
  /** How many times `acquire` wrote the state file (an atomic write is a new inode). */
  const writes = async (file: string, times: number, acquire: () => Promise<unknown>) => {
    let count = 0;
    for (let i = 0; i < times; i += 1) {
      const before = fs.statSync(file).ino;
      await acquire();
      if (fs.statSync(file).ino !== before) count += 1;
    }
    return count;
  };

  it('blocks grow with the requests let go: 32 requests are 6 writes of the state file, and no slot goes twice across processes', async () => {
    const { file, gate } = await seeded();
    // Blocks of 1, 1, 2, 4, 8 and 16: each as large as the requests let go so far this second.
    expect(await writes(file, 32, () => gate.acquire())).toBe(6);
    expect((await gate.current())?.window?.remaining).toBe(68);
    const other = await openRateLimitState(file, BASE, KEY, clock(NOW));
    const decisions = await Promise.all(Array.from({ length: 80 }, () => other.acquire()));
    expect(decisions.filter((d) => d.go)).toHaveLength(68);
  });

  it('a block is sized to the last second; requests side by side keep every slot they claimed; the slots not sent go back', async () => {
    const { file, clockAt, gate } = await seeded();
    await writes(file, 16, () => gate.acquire());
    clockAt.ms += 1000;
    // Four requests at once, each claiming a block of the 16 let go the second before.
    const decisions = await Promise.all(Array.from({ length: 4 }, () => gate.acquire()));
    expect(decisions).toEqual(Array.from({ length: 4 }, () => expect.objectContaining({ go: true, slots: 16 })));
    expect((await gate.current())?.window?.remaining).toBe(100 - 16 - 64);
    // The 60 others of those blocks go without a write; the next block takes the 20 the window has left, and 10 are sent.
    expect(await writes(file, 60, () => gate.acquire())).toBe(0);
    expect(await writes(file, 10, () => gate.acquire())).toBe(1);
    expect((await gate.current())?.window?.remaining).toBe(0);
    await gate.release();
    expect((await gate.current())?.window?.remaining).toBe(10);
  });

  it('a request refused an empty window takes the slot the claim beside it pooled: 6 left means 6 sent', async () => {
    const gate = openGate(openFileStore(stateFile(), BASE, KEY, clock(NOW)), { now: clock(NOW) });
    await gate.record({ status: 201, remaining: 6, reset: resetAt / 1000, resetAt });
    // Blocks of 1, 1, 2 (one of them pooled, taken by the fourth): the pace is now 4 a second.
    const sent = [];
    for (let i = 0; i < 4; i++) sent.push((await gate.acquire()).go);
    expect((await gate.current())?.window?.remaining).toBe(2);
    // Two at once: the first claims the last 2 slots, the second finds the window empty and takes the pooled one.
    sent.push(...(await Promise.all([gate.acquire(), gate.acquire()])).map((decision) => decision.go));
    expect(sent).toEqual([true, true, true, true, true, true]);
    expect((await gate.current())?.window?.remaining).toBe(0);
    expect(await gate.acquire()).toEqual({ go: false, until: resetAt, reason: 'window' });
  });

  // Slots of a window that has ended are not given back: waits-table.test.ts, 'slots not sent go back while their window lasts'.
  it('a 429 drops the block: what it claimed is not given back', async () => {
    const { file, gate } = await seeded();
    await writes(file, 4, () => gate.acquire());
    const claimed = (await gate.current())!.window!.remaining;
    await gate.record({ status: 429, remaining: 0, reset: resetAt / 1000, resetAt, retryAt: NOW + 2000 });
    expect(await gate.acquire()).toMatchObject({ go: false });
    // What was claimed stays claimed after a refusal: the service's count is not the record's.
    await gate.release();
    expect((await gate.current())?.window?.remaining).toBe(claimed);
  });
});

describe('the probe after a hold', () => {
  it('one that gets no answer gives its lease up: the next request, in another process too, need not wait it out', async () => {
    const file = stateFile();
    const at = { ms: NOW };
    const [mine, other] = [await openRateLimitState(file, BASE, KEY, () => at.ms), await openRateLimitState(file, BASE, KEY, () => at.ms)];
    // A 429 that names no time holds the key; after the hold one request probes.
    await mine.record({ status: 429 });
    at.ms = (await mine.current())!.blockedUntil!;
    expect(await mine.acquire()).toMatchObject({ go: true });
    expect(await other.acquire()).toMatchObject({ go: false, reason: 'probe' });
    // Only the process whose probe it is gives the lease up.
    await other.abandon();
    expect(await other.acquire()).toMatchObject({ go: false, reason: 'probe' });
    await mine.abandon();
    expect(await other.acquire()).toMatchObject({ go: true });
  });
});

describe('times read back are checked', () => {
  const HORIZON = NOW + MAX_STORED_AHEAD_MS;
  const window = { reset: Math.floor(HORIZON / 1000), resetAt: HORIZON, remaining: 3 };
  const kept = { blockedUntil: HORIZON, reason: 'key_banned', window, probeUntil: NOW + 500 };
  it.each([
    { what: 'a blockedUntil of 1e300', entry: { blockedUntil: 1e300, reason: 'key_banned' }, dropped: ['blockedUntil'] },
    { what: 'a blockedUntil of "NaN"', entry: { blockedUntil: 'NaN', reason: 'key_banned' }, dropped: ['blockedUntil'] },
    { what: 'a blockedUntil of digits in a string', entry: { blockedUntil: `${NOW + 60_000}`, reason: 'key_banned' }, dropped: ['blockedUntil'] },
    { what: 'a negative blockedUntil', entry: { blockedUntil: -5, reason: 'key_banned' }, dropped: ['blockedUntil'] },
    {
      what: 'a blockedUntil just beyond a day past the longest wait the service can ask for',
      entry: { blockedUntil: HORIZON + 1, reason: 'key_banned' },
      dropped: ['blockedUntil'],
    },
    {
      what: 'a window whose reset is not plausible, and an unknown reason',
      entry: { blockedUntil: NOW + 1_000, reason: 'hostile', window: { reset: 1e300, resetAt: NOW + 1_000, remaining: 1 } },
      dropped: ['reason', 'window.reset'],
    },
    { what: 'what the service could have said, to a day beyond it', entry: kept, dropped: [], read: kept },
  ])('$what: dropped $dropped, each named', ({ entry, dropped, read }) => {
    const named: string[] = [];
    expect(readEntry(entry, NOW, named)).toEqual(read);
    expect(named).toEqual(dropped);
  });

  it('the file gate warns once per run, goes on as if nothing were recorded, drops the value at the next write; profile show too', async () => {
    const file = stateFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const id = await limitId(BASE, KEY);
    fs.writeFileSync(file, JSON.stringify({ version: 1, limits: { [id]: { blockedUntil: 1e300, reason: 'key_banned' } } }));
    const warnings: string[] = [];
    // A read without a gate, as profile show reads it.
    const report = (notice: StoreNotice) => warnings.push(stateStoreLine(notice));
    expect(await openFileStore(file, BASE, KEY, () => NOW, { report }).read()).toBeUndefined();
    expect(warnings).toHaveLength(1);
    const gate = await openRateLimitState(file, BASE, KEY, clock(NOW), { warn: (message) => warnings.push(message) });
    expect(await gate.acquire()).toMatchObject({ go: true, entry: { probeUntil: NOW + 5000 } });
    expect(await gate.current()).toEqual({ probeUntil: NOW + 5000 });
    const ignored = `ignored blockedUntil in the rate-limit state at ${file}: not a time petctl could have stored (not a number, or more than a day past the longest wait the service can ask for)`;
    expect(warnings).toEqual([ignored, ignored]);
    await gate.record({ status: 429, retryAt: NOW + 5_000 });
    expect(readState(file).limits[id]).toEqual({ blockedUntil: NOW + 5_000, reason: 'rate_limited' });
  });
});

describe.skipIf(noSmallDisk)('state.json on a full disk', () => {
  it('a write that fails is state_unwritable (exit 1), naming the file and the system\'s reason; reading still works', async (t) => {
    const disk = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-state-disk-'));
    expect(mountSmallDisk(disk, '64k')).toBe(true);
    t.onTestFinished(() => {
      unmountSmallDisk(disk);
      fs.rmSync(disk, { recursive: true, force: true });
    });
    const file = path.join(disk, 'state.json');
    const gate = await openRateLimitState(file, BASE, KEY, clock(NOW));
    await block(gate, NOW + 60_000, 'rate_limited');
    fill(disk);

    const failure = await block(gate, NOW + 120_000, 'key_banned').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StateUnwritableError);
    expect(failure).toMatchObject({ code: 'state_unwritable', exitCode: 1, file, message: `cannot write the rate-limit state file ${file}: no space left on the device (ENOSPC)` });
    // Once the block is over, a paced request would take from the shared budget: it is not let through.
    await expect((await openRateLimitState(file, BASE, KEY, clock(NOW + 61_000))).acquire()).rejects.toBeInstanceOf(StateUnwritableError);
    // The block written before the disk filled up still holds; no temporary file is left behind.
    expect(await gate.current()).toMatchObject({ blockedUntil: NOW + 60_000, reason: 'rate_limited' });
    expect(fs.readdirSync(disk).sort()).toEqual(['filler', 'state.json']);
  });
});
