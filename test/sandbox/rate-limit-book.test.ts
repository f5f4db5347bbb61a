import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it, vi } from 'vitest';

import { limitsFileOf } from '../../src/config/paths';
import { mergeEntry, openFileRateLimits, rateLimitPolicy, type KeyRateState } from '../../src/sandbox/rate-limiter';
import { tempDir } from '../helpers/temp-dir';
import { fakeClock } from './helpers';

const policy = rateLimitPolicy();
const FREE = { perMinute: 60, perDay: 1000 };
const dataFile = () => path.join(tempDir(), 'pets.json');

function stored(file: string): { processes: number[]; rateLimits: Record<string, KeyRateState> } {
  return JSON.parse(readFileSync(limitsFileOf(file), 'utf8'));
}

/** A counts file beside `file` listing `processes`. */
const listing = (file: string, processes: number[]) =>
  writeFileSync(limitsFileOf(file), JSON.stringify({ version: 1, processes, rateLimits: {} }));

it('counts file: a process alone counts in memory: written a second after a batch begins, and at its stop', async () => {
  const file = dataFile();
  const clock = fakeClock();
  const book = await openFileRateLimits(file, policy, clock.now);
  expect(stored(file).processes).toEqual([process.pid]);
  const before = statSync(limitsFileOf(file)).mtimeMs;
  const began = performance.now();
  for (let i = 0; i < 10; i += 1) expect(book.check('sandbox-free', FREE, clock.now())).not.toBeInstanceOf(Promise);
  expect([statSync(limitsFileOf(file)).mtimeMs, stored(file).rateLimits]).toEqual([before, {}]);
  const written = () => expect(stored(file).rateLimits['sandbox-free']).toMatchObject({ minuteCount: 10 });
  await vi.waitFor(written, { timeout: 5000, interval: 50 });
  // A lower bound only: the flush waits its second, however slow the machine.
  expect(performance.now() - began).toBeGreaterThanOrEqual(900);
  await book.close();
  expect(stored(file)).toMatchObject({ processes: [], rateLimits: { 'sandbox-free': { minuteCount: 10, dayCount: 10 } } });
  expect(statSync(limitsFileOf(file)).mode & 0o777).toBe(0o600);
  const next = await openFileRateLimits(file, policy, clock.now);
  expect((await next.check('sandbox-free', FREE, clock.now())).remaining).toBe(49);
  await next.close();
});

it('counts file: processes running side by side share the counts exactly, and a lone one goes back to memory', async (t) => {
  const file = dataFile();
  const clock = fakeClock();
  // A live process listed in the file, as another sandbox on the data file lists itself.
  const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  t.onTestFinished(() => void other.kill());
  listing(file, [other.pid!]);
  const one = await openFileRateLimits(file, policy, clock.now);
  const two = await openFileRateLimits(file, policy, clock.now);
  const remaining: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    remaining.push((await one.check('k', FREE, clock.now())).remaining);
    remaining.push((await two.check('k', FREE, clock.now())).remaining);
  }
  expect(remaining).toEqual([59, 58, 57, 56, 55, 54, 53, 52, 51, 50]);
  await two.close();
  expect((await one.check('k', FREE, clock.now())).remaining).toBe(49);
  // Another live process is listed: each request goes through the file, though it has not changed.
  const shared = one.check('k', FREE, clock.now());
  expect(shared).toBeInstanceOf(Promise);
  expect((await shared).remaining).toBe(48);
  other.kill();
  await once(other, 'exit');
  // `one` notices it is alone at its next request and then counts in memory.
  expect((await one.check('k', FREE, clock.now())).remaining).toBe(47);
  expect(one.check('k', FREE, clock.now())).not.toBeInstanceOf(Promise);
  await one.close();
  expect(stored(file).rateLimits.k).toMatchObject({ minuteCount: 14 });
});

it('counts file: forgets processes that died without leaving (a crash); a damaged one reads as empty', async () => {
  const file = dataFile();
  listing(file, [2 ** 22 + 12345]);
  const book = await openFileRateLimits(file, policy);
  expect(book.check('k', FREE, Date.now())).not.toBeInstanceOf(Promise);
  await book.close();
  expect(stored(file).processes).toEqual([]);
  writeFileSync(limitsFileOf(file), '{ not json');
  const reopened = await openFileRateLimits(file, policy);
  expect((await reopened.check('k', FREE, Date.now())).remaining).toBe(59);
  await reopened.close();
});

const now = 1_000_000;
const win = (ago: number, minuteCount: number, extra: Partial<KeyRateState> = {}): KeyRateState => ({
  minuteStart: now - ago,
  minuteCount,
  dayStart: now - ago,
  dayCount: minuteCount,
  strikes: 0,
  ...extra,
});

const minute = (ago: number, minuteCount: number) => ({ minuteStart: now - ago, minuteCount });

// [file's, what this process last wrote, this process's] → what is written
it.each([
  ["adds new local requests to the file's open window", win(1000, 10), win(1000, 4), win(1000, 7), win(1000, 13)],
  ['adds all requests of a window opened since the last write', win(1000, 10), win(90e3, 4), win(500, 3), minute(1000, 13)],
  ["keeps the local window when the file's one is over", win(70_000, 50), win(70_000, 50), win(500, 3), minute(500, 3)],
  [
    'takes the later end of a ban or a limited period, and the higher strike count',
    win(1000, 60, { bannedUntil: now + 5000, strikes: 2 }),
    undefined,
    win(1000, 60, { limitedUntil: now + 100, strikes: 5 }),
    { bannedUntil: now + 5000, limitedUntil: now + 100, strikes: 5 },
  ],
  ['takes the local entry when the file has none', undefined, undefined, win(0, 1), win(0, 1)],
])('mergeEntry %s', (_title, file, written, local, merged) => {
  expect(mergeEntry(file, written, local, policy, now)).toMatchObject(merged);
});
