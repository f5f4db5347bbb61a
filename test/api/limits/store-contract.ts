import { describe, expect, it } from 'vitest';
import type { LimitEntry, LimitWindow } from '../../../src/api/limits/entry';
import type { LimitStore } from '../../../src/api/limits/store';

/** What every LimitStore promises, run by store-contract.test.ts on each store with its own set-up. */

/** One process using the store: its own handle (a connection, a file descriptor) and its own clock. */
export interface StoreProcess {
  store: LimitStore;
  now: () => number;
}

export interface StoreUnderTest {
  /** Another process on the same record, with a clock `skewMs` off this machine's. */
  open(options?: { skewMs?: number }): Promise<StoreProcess>;
  /** How far two processes' readings of one moment may differ, in ms (measuring another clock has an error). */
  toleranceMs: number;
  /** Whether the record would still be there at `at` (epoch ms, this machine's clock). */
  keptAt(at: number): Promise<boolean>;
  /** Runs after each test's first write (by `writer`), before anything checks it. */
  afterFirstWrite?(writer: StoreProcess): Promise<void>;
}

/**
 * The record's fields by kind; the type checker holds the lists to the record, so a field added to it is covered
 * here. `time`: epoch ms, moved with the clock. `unixSeconds`: the server's name for a window, never moved.
 */
const ENTRY_FIELDS = {
  blockedUntil: 'time',
  reason: 'reason',
  window: 'window',
  probeUntil: 'time',
  untrackedUntil: 'time',
  silentLimitUntil: 'time',
  holdMs: 'duration',
} as const satisfies { [K in keyof Required<LimitEntry>]: 'time' | 'duration' | 'reason' | 'window' };

const WINDOW_FIELDS = {
  reset: 'unixSeconds',
  resetAt: 'time',
  remaining: 'count',
  limit: 'count',
} as const satisfies { [K in keyof Required<LimitWindow>]: 'time' | 'unixSeconds' | 'count' };

const timesOf = (fields: Record<string, string>) => Object.keys(fields).filter((name) => fields[name] === 'time');
const TIMES = timesOf(ENTRY_FIELDS);
const WINDOW_TIMES = timesOf(WINDOW_FIELDS);

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `entry` with each of its times passed through `to`. */
function withTimes(entry: LimitEntry, to: (ms: number) => number): LimitEntry {
  const result: Record<string, unknown> = { ...entry };
  for (const name of TIMES) if (result[name] !== undefined) result[name] = to(result[name] as number);
  if (entry.window) {
    const moved = WINDOW_TIMES.map((name) => [name, to(entry.window![name as keyof LimitWindow] as number)]);
    result.window = { ...entry.window, ...Object.fromEntries(moved) };
  }
  return result as LimitEntry;
}

/** A record with every field of the lists set, each time a different moment from `from` on. */
function everyFieldSet(from: number): LimitEntry {
  const values = { duration: 7_000, reason: 'key_banned', count: 7, unixSeconds: Math.ceil(from / 1000), time: 0 };
  const window = Object.fromEntries(Object.entries(WINDOW_FIELDS).map(([name, kind]) => [name, values[kind]]));
  const fields = Object.entries(ENTRY_FIELDS).map(([name, kind]) => [name, kind === 'window' ? window : values[kind]]);
  const entry = Object.fromEntries(fields);
  let step = 0;
  return withTimes(entry as LimitEntry, () => from + (step += 1) * 1_000);
}

/** A record with just one time field set to `at` (and what it needs to be whole), for each time field of the lists. */
function eachTimeAlone(at: number): Array<{ field: string; entry: LimitEntry }> {
  const full = everyFieldSet(at);
  const alone = (name: string): LimitEntry => (name === 'blockedUntil' ? { blockedUntil: at, reason: 'rate_limited' } : { [name]: at });
  return [
    ...TIMES.map((name) => ({ field: name, entry: alone(name) })),
    ...WINDOW_TIMES.map((name) => ({ field: `window.${name}`, entry: { window: { ...full.window!, [name]: at } } })),
  ];
}

/** `expected` with each number let off by `toleranceMs` either way (times measured across clocks). */
function near(expected: unknown, toleranceMs: number): unknown {
  if (typeof expected === 'number' && toleranceMs > 0) return expect.closeTo(expected, -Math.log10(2 * toleranceMs));
  if (!expected || typeof expected !== 'object') return expected;
  return Object.fromEntries(Object.entries(expected).map(([name, value]) => [name, near(value, toleranceMs)]));
}

const write = (store: LimitStore, entry: LimitEntry) => store.update(() => ({ entry, result: undefined }));

/**
 * `acrossMachines`: processes may run on machines whose clocks disagree (a store shared across machines).
 * On one machine, one clock: a second process reads the times exactly as written (the first test).
 */
export function limitStoreContract(
  name: string,
  setup: () => Promise<StoreUnderTest>,
  options: { skip?: boolean; acrossMachines?: boolean } = {},
): void {
  describe.skipIf(options.skip === true)(`the LimitStore contract: ${name}`, () => {
    it('every field of the record survives a write and a read, by the writer and by another process', async () => {
      const subject = await setup();
      const writer = await subject.open();
      const full = everyFieldSet(writer.now() + MINUTE);
      await write(writer.store, full);
      await subject.afterFirstWrite?.(writer);

      expect(await writer.store.read()).toEqual(near(full, subject.toleranceMs));
      const reader = await subject.open();
      expect(await reader.store.read()).toEqual(near(full, subject.toleranceMs));
      // And through an update, which sees what read sees.
      const seen = await reader.store.update((entry) => ({ result: entry }));
      expect(seen).toEqual(near(full, subject.toleranceMs));
    });

    it('concurrent updaters in several processes never lose an update', async () => {
      const subject = await setup();
      const first = await subject.open();
      const start = first.now();
      await write(first.store, { window: { reset: Math.ceil(start / 1000) + 60, resetAt: start + MINUTE, remaining: 0 } });
      await subject.afterFirstWrite?.(first);

      const processes = [first, ...(await Promise.all([1, 2, 3].map(() => subject.open())))];
      const perProcess = 15;
      const count = (entry: LimitEntry | undefined) => ({ entry: { ...entry, window: { ...entry!.window!, remaining: entry!.window!.remaining + 1 } }, result: undefined });
      await Promise.all(processes.flatMap(({ store }) => Array.from({ length: perProcess }, () => store.update(count))));

      expect((await first.store.read())?.window?.remaining).toBe(processes.length * perProcess);
    }, 60_000);

    it('a record is kept while any one of its times lies ahead, and gone within a day after the last', async () => {
      const subject = await setup();
      const writer = await subject.open();
      const at = writer.now() + 2 * HOUR;
      let first = true;
      for (const { field, entry } of eachTimeAlone(at)) {
        await write(writer.store, entry);
        if (first) await subject.afterFirstWrite?.(writer);
        first = false;
        expect(await subject.keptAt(at - 1_000), `a record holding only ${field}`).toBe(true);
        expect(await subject.keptAt(at + DAY + HOUR), `a record holding only ${field}, a day after it`).toBe(false);
      }
    }, 60_000);

    it.runIf(options.acrossMachines === true)('clocks that disagree see every time as the same moment', async () => {
      const subject = await setup();
      const ahead = await subject.open({ skewMs: 90_000 });
      const behind = await subject.open({ skewMs: -90_000 });
      const full = everyFieldSet(ahead.now() + MINUTE);
      await write(ahead.store, full);
      await subject.afterFirstWrite?.(ahead);

      expect(await behind.store.read()).toEqual(near(withTimes(full, (ms) => ms - 180_000), subject.toleranceMs));
      // Written back by the machine behind, read by the one ahead: the same moments again.
      const back = everyFieldSet(behind.now() + MINUTE);
      await write(behind.store, back);
      expect(await ahead.store.read()).toEqual(near(withTimes(back, (ms) => ms + 180_000), subject.toleranceMs));
    });
  });
}
