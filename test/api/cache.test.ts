import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Answer } from '../../src/api/answer';
import { ResponseCache, clearCache } from '../../src/api/cache';
import { UnsafeFileError } from '../../src/errors';
import { tempDir } from '../helpers/temp-dir';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
if (!isRoot && process.platform !== 'win32') console.warn('test/api/cache.test.ts: not root, so the cases of a folder another user owns (chown 65534) are skipped');

const MINUTE = 60_000;
const BASE = 'https://api.example.org/v1';
const KEY = 'pk_live_secret_key_for_the_cache_test';

function answer(text: string, headers: Record<string, string> = {}): Answer {
  return { status: 200, text, headers, header: (name) => headers[name.toLowerCase()] };
}

/** A cache in a folder of its own, on a clock the test moves: `cache` is the key's; `open` opens another key's or folder's. */
async function openCache() {
  const cacheDir = tempDir();
  const clock = { now: Date.UTC(2026, 10, 25, 12, 0, 0) };
  const unusable: Error[] = [];
  const open = (key = KEY, dir = cacheDir) => ResponseCache.open({ cacheDir: dir, baseUrl: BASE, identity: BASE, apiKey: key, now: () => clock.now, unusable: (error) => unusable.push(error) });
  return { cacheDir, clock, open, unusable, cache: await open() };
}

const LIST = { method: 'GET', url: `${BASE}/pets?status=available` };

describe('ResponseCache', () => {
  it('serves an answer up to the --cache that asks, and until the --cache that stored it runs out; then removes it', async () => {
    const { clock, cache } = await openCache();
    await cache.store(LIST, answer('[1]', { link: '</pets?after=1>; rel="next"' }), 5 * MINUTE);
    clock.now += 5 * MINUTE - 1000;
    const hit = await cache.lookup(LIST, 5 * MINUTE);
    expect(hit).toMatchObject({ ageMs: 5 * MINUTE - 1000, answer: { status: 200, text: '[1]' } });
    expect(hit!.answer.header('Link')).toBe('</pets?after=1>; rel="next"');
    // Too old for a shorter --cache, yet kept for the one that stored it.
    expect(await cache.lookup(LIST, MINUTE)).toBeUndefined();
    expect(fs.readdirSync(cache.dir)).toHaveLength(1);
    // A longer --cache does not stretch its life.
    clock.now += 1000;
    expect(await cache.lookup(LIST, 60 * MINUTE)).toBeUndefined();
    expect(fs.readdirSync(cache.dir)).toEqual([]);
    // An entry from the future (the clock stepped back) is dropped, not served for hours.
    await cache.store(LIST, answer('[]'), 60 * MINUTE);
    clock.now -= 10 * MINUTE;
    expect(await cache.lookup(LIST, 60 * MINUTE)).toBeUndefined();
    expect(fs.readdirSync(cache.dir)).toEqual([]);
  });

  it('tells requests apart by method, URL relative to the base URL, extra headers, and key', async () => {
    const { cache, open } = await openCache();
    await cache.store({ ...LIST, headers: { Accept: 'text/csv' } }, answer('csv'), MINUTE);
    await cache.store(LIST, answer('json'), MINUTE);
    expect((await cache.lookup({ ...LIST, headers: { accept: 'text/csv' } }, MINUTE))?.answer.text).toBe('csv');
    expect((await cache.lookup(LIST, MINUTE))?.answer.text).toBe('json');
    expect(await cache.lookup({ ...LIST, url: `${BASE}/pets?status=sold` }, MINUTE)).toBeUndefined();
    expect(await (await open('pk_live_another_key')).lookup(LIST, MINUTE)).toBeUndefined();
    for (const name of fs.readdirSync(cache.dir)) expect(fs.readFileSync(path.join(cache.dir, name), 'utf8')).not.toContain(KEY);
    expect(cache.dir).not.toContain(KEY);
  });

  it('a damaged entry is a miss, removed; a directory or a symlink at an entry is refused, not skipped', async () => {
    const { unusable, cacheDir, cache } = await openCache();
    await cache.store(LIST, answer('[]'), MINUTE);
    const entry = path.join(cache.dir, fs.readdirSync(cache.dir)[0]!);
    fs.writeFileSync(entry, '{"storedAt":');
    expect(await cache.lookup(LIST, MINUTE)).toBeUndefined();
    expect(fs.readdirSync(cache.dir)).toEqual([]);
    fs.mkdirSync(entry);
    await expect(cache.lookup(LIST, MINUTE)).rejects.toThrow(UnsafeFileError);
    fs.rmdirSync(entry);
    fs.symlinkSync(path.join(cacheDir, 'elsewhere'), entry);
    let sent = false;
    await expect(cache.answer(LIST, MINUTE, async () => ((sent = true), answer('[]')))).rejects.toThrow(/it is a symbolic link/);
    expect(sent).toBe(false);
    expect(unusable).toEqual([]);
  });

  it('forgetTarget removes this target\'s answers only; clearCache removes every target\'s and counts them', async () => {
    const { cacheDir, open, cache: mine } = await openCache();
    const other = await open('pk_live_another_key');
    await mine.store(LIST, answer('[]'), MINUTE);
    await other.store(LIST, answer('[]'), MINUTE);
    await other.store({ method: 'GET', url: `${BASE}/pets/1` }, answer('{}'), MINUTE);
    mine.forgetTarget();
    expect(fs.existsSync(mine.dir)).toBe(false);
    expect(fs.readdirSync(other.dir)).toHaveLength(2);
    expect(clearCache(cacheDir)).toBe(2);
    expect(clearCache(cacheDir)).toBe(0);
  });

  it('a cache that cannot be written is reported and skipped: the answer sent is still the answer', async () => {
    const { cacheDir, open, unusable } = await openCache();
    const notAFolder = path.join(cacheDir, 'file');
    fs.writeFileSync(notAFolder, '');
    const cache = await open(KEY, path.join(notAFolder, 'petctl'));
    const sent = answer('[7]');
    expect(await cache.answer(LIST, MINUTE, async () => sent)).toBe(sent);
    expect(unusable.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['ENOTDIR']);
  });
});

/** A folder of the user's beside the cache, as a symlink planted in it would lead to: the config folder, or a project. */
function victimFolder() {
  const dir = tempDir();
  fs.chmodSync(dir, 0o755);
  // An expired entry of the cache's own name and form: only the rule on folders keeps it from being swept.
  const expired = JSON.stringify({ storedAt: 0, expiresAt: 1, status: 200, headers: {}, text: '[]' });
  const files: Record<string, string> = { 'config.json': '{"profiles":{}}', 'package.json': '{"name":"proj"}', [`${'a'.repeat(64)}.json`]: expired };
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text, { mode: 0o600 });
  const snapshot = () => ({ mode: fs.statSync(dir).mode, files: Object.fromEntries(fs.readdirSync(dir).map((name) => [name, fs.readFileSync(path.join(dir, name), 'utf8')])) });
  return { dir, before: snapshot(), snapshot };
}

describe.skipIf(process.platform === 'win32')('the cache is its own: its folders are the user\'s, walked without following links', () => {
  const LEVELS = ['the cache root', 'responses/', "the target's folder"] as const;
  const folderAt = (cacheDir: string, targetDir: string, level: (typeof LEVELS)[number]) =>
    level === 'the cache root' ? cacheDir : level === 'responses/' ? path.join(cacheDir, 'responses') : targetDir;

  for (const level of LEVELS) {
    it(`${level} as a symlink to the user's folder: not followed; reported once; the answer sent is the answer`, async () => {
      const { cacheDir, unusable, cache } = await openCache();
      const victim = victimFolder();
      const folder = folderAt(cacheDir, cache.dir, level);
      fs.mkdirSync(path.dirname(folder), { recursive: true });
      fs.rmSync(folder, { recursive: true, force: true });
      fs.symlinkSync(victim.dir, folder);
      const sent = answer('[7]');
      expect(await cache.answer(LIST, MINUTE, async () => sent)).toBe(sent);
      expect(await cache.answer(LIST, MINUTE, async () => sent)).toBe(sent);
      cache.forgetTarget();
      expect(unusable).toEqual([expect.objectContaining({ file: folder, problem: { kind: 'symlink' } })]);
      expect(victim.snapshot()).toEqual(victim.before);
    });

    const unsafe = [
      { what: "writable by others (0777, the user's own): not used, not chmodded", mode: 0o777 },
      // Another owner's folder can be made only as root.
      { what: 'owned by another user: not used', owner: NOBODY },
    ];
    for (const { what, mode, owner } of unsafe) it.skipIf(owner !== undefined && !isRoot)(`${level} ${what}, nothing written`, async () => {
      const { cacheDir, unusable, cache } = await openCache();
      const folder = folderAt(cacheDir, cache.dir, level);
      fs.mkdirSync(cache.dir, { recursive: true, mode: 0o700 });
      if (mode !== undefined) fs.chmodSync(folder, mode);
      if (owner !== undefined) fs.chownSync(folder, owner, owner);
      const before = fs.statSync(folder);
      let sends = 0;
      await cache.answer(LIST, MINUTE, async () => (sends++, answer('[]')));
      await cache.answer(LIST, MINUTE, async () => (sends++, answer('[]')));
      expect(sends).toBe(2);
      const problem = owner === undefined ? { kind: 'writable_by_others', mode: expect.any(Number) } : { kind: 'other_owner', uid: owner };
      expect(unusable).toEqual([expect.objectContaining({ file: folder, problem })]);
      expect([fs.statSync(folder).mode, fs.statSync(folder).uid]).toEqual([before.mode, before.uid]);
      expect(fs.readdirSync(cache.dir)).toEqual([]);
    });
  }

  it('storing sweeps, and forgetTarget removes, only files of the cache\'s own name that are the user\'s: a link of that name is left, and what it leads to', async () => {
    const { clock, cache } = await openCache();
    await cache.store(LIST, answer('[]'), MINUTE);
    const [expired] = fs.readdirSync(cache.dir);
    const victim = victimFolder();
    const strays = { 'notes.json': '{}', 'package.json': '{"name":"proj"}' };
    for (const [name, text] of Object.entries(strays)) fs.writeFileSync(path.join(cache.dir, name), text);
    const link = path.join(cache.dir, `${'b'.repeat(64)}.json`);
    fs.symlinkSync(path.join(victim.dir, `${'a'.repeat(64)}.json`), link);
    clock.now += 2 * MINUTE;
    await cache.store({ ...LIST, url: `${BASE}/pets/1` }, answer('{}'), MINUTE);
    // The expired entry is swept, the new one kept; nothing else is touched.
    const names = fs.readdirSync(cache.dir);
    const entries = names.filter((name) => !(name in strays) && name !== path.basename(link));
    expect(entries).toEqual([expect.stringMatching(/^[0-9a-f]{64}\.json$/)]);
    expect(entries).not.toContain(expired);
    expect(names).toEqual(expect.arrayContaining([...Object.keys(strays), path.basename(link)]));
    cache.forgetTarget();
    expect(fs.readdirSync(cache.dir).sort()).toEqual([path.basename(link), 'notes.json', 'package.json']);
    expect(victim.snapshot()).toEqual(victim.before);
  });

  it('clearCache removes only the cache\'s own entries: a target folder that is a link is not followed, strays are left; a root another user could change is refused', async () => {
    const { cacheDir, cache } = await openCache();
    await cache.store(LIST, answer('[]'), MINUTE);
    fs.writeFileSync(path.join(cache.dir, 'notes.json'), '{}');
    const victim = victimFolder();
    fs.symlinkSync(victim.dir, path.join(cacheDir, 'responses', 'c'.repeat(32)));
    expect(clearCache(cacheDir)).toBe(1);
    expect(fs.readdirSync(cache.dir)).toEqual(['notes.json']);
    expect(victim.snapshot()).toEqual(victim.before);
    fs.chmodSync(cacheDir, 0o777);
    expect(() => clearCache(cacheDir)).toThrow(`refusing to use ${cacheDir}: other users can write to it (mode 0777)`);
    // clearCache refuses a symlink in place of responses/, and leaves what it points to.
    fs.chmodSync(cacheDir, 0o700);
    fs.rmSync(path.join(cacheDir, 'responses'), { recursive: true });
    fs.symlinkSync(victim.dir, path.join(cacheDir, 'responses'));
    expect(() => clearCache(cacheDir)).toThrow(/it is a symbolic link/);
    expect(victim.snapshot()).toEqual(victim.before);
  });
});

