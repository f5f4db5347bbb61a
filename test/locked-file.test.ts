import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fileSystemFailure } from '../src/errors';
import { ensurePrivateDir, lockPathOf, makeDirs, withFileLock, writeFileAtomic } from '../src/locked-file';
import { tempDir } from './helpers/temp-dir';

/** A free `<file>.lock` is taken without loading proper-lockfile (docs/performance.md); a held or stale one through it. */
const { lockCalls } = vi.hoisted(() => ({ lockCalls: [] as string[] }));
vi.mock('proper-lockfile', async (importOriginal) => {
  const real = (await importOriginal()) as { default: { lock: (file: string, options: object) => Promise<() => Promise<void>> } };
  const lock = (file: string, options: object) => {
    lockCalls.push(file);
    return real.default.lock(file, options);
  };
  return { default: { ...real.default, lock } };
});

afterEach(() => {
  vi.useRealTimers();
  lockCalls.length = 0;
});

const stateFile = () => path.join(tempDir(), 'state.json');

describe('withFileLock', () => {
  it('takes a free lock itself: the lock directory exists while the work runs and is gone after, the work failing too', async () => {
    const file = stateFile();
    const seen = await withFileLock(file, () => fs.statSync(lockPathOf(file)).isDirectory());
    expect(seen).toBe(true);
    expect(fs.existsSync(lockPathOf(file))).toBe(false);
    expect(lockCalls).toEqual([]);
    await expect(
      withFileLock(file, () => {
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(fs.existsSync(lockPathOf(file))).toBe(false);
  });

  it('keeps a lock it holds fresh, as proper-lockfile does, so a long hold is never taken over as stale', async () => {
    const file = stateFile();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let finish!: () => void;
    const held = withFileLock(file, () => new Promise<void>((resolve) => (finish = resolve)));
    await vi.waitFor(() => expect(fs.existsSync(lockPathOf(file))).toBe(true));
    const old = new Date(Date.now() - 8_000);
    fs.utimesSync(lockPathOf(file), old, old);
    vi.advanceTimersByTime(5_000);
    await vi.waitFor(() => expect(Date.now() - fs.statSync(lockPathOf(file)).mtimeMs).toBeLessThan(2_000));
    finish();
    await held;
    expect(fs.existsSync(lockPathOf(file))).toBe(false);
  });

  it("waits through proper-lockfile for a lock another process holds, and runs once it is let go", async () => {
    const file = stateFile();
    // Another petctl holds the lock for 300 ms, and notes when it lets go, just before.
    const released = `${file}.released`;
    const lock = JSON.stringify(lockPathOf(file));
    const holder = spawn(process.execPath, ['-e', `const fs = require('fs'); fs.mkdirSync(${lock}); setTimeout(() => { fs.writeFileSync(${JSON.stringify(released)}, ''); fs.rmdirSync(${lock}); }, 300); console.log('held');`]);
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    // The work runs only after the holder let go, however late its "held" arrived here.
    const ranAfterRelease = await withFileLock(file, () => fs.existsSync(released));
    expect(ranAfterRelease).toBe(true);
    expect(lockCalls).toEqual([file]);
    expect(fs.existsSync(lockPathOf(file))).toBe(false);
  });

  it('takes over a stale lock a crashed process left (untouched for over 10 s) through proper-lockfile', async () => {
    const file = stateFile();
    fs.mkdirSync(lockPathOf(file));
    const old = new Date(Date.now() - 11_000);
    fs.utimesSync(lockPathOf(file), old, old);
    expect(await withFileLock(file, () => 'ran')).toBe('ran');
    expect(lockCalls).toEqual([file]);
    expect(fs.existsSync(lockPathOf(file))).toBe(false);
  });
});

it("a lock kept fresh by a live process all the while petctl waits: proper-lockfile's ELOCKED, worded by main as file_unusable", async () => {
  const file = stateFile();
  fs.mkdirSync(lockPathOf(file));
  const { default: lockfile } = await import('proper-lockfile');
  // withFileLock's own options but no retries: the same error, without its 19 s of waiting.
  const held = await lockfile.lock(file, { realpath: false, lockfilePath: lockPathOf(file), stale: 10_000, retries: 0 }).catch((error: unknown) => error);
  const failure = fileSystemFailure(held);
  expect(failure).toMatchObject({ code: 'file_unusable', exitCode: 1, hint: expect.stringContaining('remove the lock only if no petctl is running') });
  expect(failure!.message).toBe(`cannot use ${file}: another process held its lock (${lockPathOf(file)}) all the while petctl waited`);
});

// Node's recursive mkdir spins forever there, deaf to signals: a config, cache or state folder under /proc must fail.
it.runIf(fs.existsSync('/proc/self'))('a folder the system will not make (under /proc) fails at once with ENOENT', () => {
  expect(() => ensurePrivateDir('/proc/petctl-none/config')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  expect(() => writeFileAtomic('/proc/petctl-none/state.json', '{}')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  const dir = path.join(tempDir(), 'a', 'b', 'c');
  makeDirs(dir);
  expect([fs.statSync(dir).mode & 0o777, fs.statSync(path.dirname(dir)).mode & 0o777]).toEqual([0o700, 0o700]);
});
