import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openProfileStore } from '../src/config/profiles';
import { resolvePaths } from '../src/config/paths';
import { chmodNoFollow, createExclusive, openOwnFile, tempPathFor } from '../src/file-safety';
import { ensurePrivateDir, withFileLock, writeFileAtomic } from '../src/locked-file';
import { tempDir } from './helpers/temp-dir';

/** What a file planted after the config directory's check meets at each writer (the built binary: test/e2e/file-safety.test.ts). */

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
afterEach(() => {
  vi.restoreAllMocks();
});

/** A folder everyone can write to, and the user's file that planted symlinks point to. */
function sharedFolder(): { dir: string; victim: string } {
  const root = tempDir();
  const dir = path.join(root, 'shared');
  fs.mkdirSync(dir);
  fs.chmodSync(dir, 0o777);
  const victim = path.join(root, '.bashrc');
  fs.writeFileSync(victim, 'alias ll="ls -l"\n', { mode: 0o644 });
  return { dir, victim };
}

function contentAndMode(file: string): [string, number] {
  return [fs.readFileSync(file, 'utf8'), fs.statSync(file).mode];
}

describe.skipIf(process.platform === 'win32')('temporary files of atomic writes', () => {
  // A symlink at each name an earlier petctl used (<file>.<pid>.<n>.tmp) is never touched.
  it('have unpredictable names; exclusive creation fails on anything already at the name', () => {
    const { dir, victim } = sharedFolder();
    const file = path.join(dir, 'state.json');
    for (let n = 1; n <= 50; n++) fs.symlinkSync(victim, `${file}.${process.pid}.${n}.tmp`);
    const before = contentAndMode(victim);

    for (let i = 0; i < 5; i++) writeFileAtomic(file, `{"n":${i}}\n`);

    expect(contentAndMode(victim)).toEqual(before);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"n":4}\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir).filter((name) => !name.startsWith('state.json.'))).toEqual(['state.json']);
    expect(tempPathFor(file)).not.toBe(tempPathFor(file));
    // The exclusive creation under them fails on anything already at the name, a symlink above all.
    for (const taken of [`${file}.${process.pid}.1.tmp`, victim]) {
      expect(() => createExclusive(taken)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    }
    expect(contentAndMode(victim)).toEqual(before);
  });
});

/** A symlink planted at a writer's name, to the user's file (its folder at a lock's): refused, the link and its target as they were. */
describe.skipIf(process.platform === 'win32')('a symlink at the name', () => {
  const work = vi.fn();
  it.each<[string, string, (link: string) => Promise<unknown>]>([
    ['an atomic write refuses it', 'pets.json.limits.json', async (file) => writeFileAtomic(file, '{}\n')],
    ['a lock refuses it rather than wait on it or remove it', 'pets.json.lock', (lock) => withFileLock(lock.slice(0, -'.lock'.length), work)],
    [
      'a file written in place (journal, sandbox data) is refused by the open itself (O_NOFOLLOW), not by a look before it',
      'intake.journal',
      (file) => {
        const lstat = vi.spyOn(fs, 'lstatSync');
        return openOwnFile(file).finally(() => expect(lstat).not.toHaveBeenCalled());
      },
    ],
  ])('%s', async (_title, name, act) => {
    const { dir, victim } = sharedFolder();
    const link = path.join(dir, name);
    const target = name.endsWith('.lock') ? path.dirname(victim) : victim;
    fs.symlinkSync(target, link);
    const before = contentAndMode(victim);

    await expect(act(link)).rejects.toMatchObject({ code: 'unsafe_file', file: link, problem: { kind: 'symlink' } });
    expect(work).not.toHaveBeenCalled();
    expect(contentAndMode(victim)).toEqual(before);
    expect(fs.readlinkSync(link)).toBe(target);
    expect(fs.readdirSync(dir)).toEqual([name]);
  });
});

describe.skipIf(process.platform === 'win32')('files of the user\'s own', () => {
  it("the user's own file that others can write: refused with its mode", () => {
    const { dir } = sharedFolder();
    const file = path.join(dir, 'state.json');
    fs.writeFileSync(file, '{}\n');
    fs.chmodSync(file, 0o664);

    expect(() => writeFileAtomic(file, '{"x":1}\n')).toThrow(expect.objectContaining({ code: 'unsafe_file', problem: { kind: 'writable_by_others', mode: expect.any(Number) } }));
    expect(contentAndMode(file)).toEqual(['{}\n', fs.statSync(file).mode]);
  });

  it('a lock directory of the user\'s own, group-writable as a 0002 umask makes it, is a lock like any other', async () => {
    const { dir } = sharedFolder();
    const file = path.join(dir, 'pets.json');
    fs.mkdirSync(`${file}.lock`);
    fs.chmodSync(`${file}.lock`, 0o775);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(`${file}.lock`, old, old);

    await expect(withFileLock(file, () => 'ran')).resolves.toBe('ran');
  });

  it('an absent file is created 0600; an own private file is opened for appending', async () => {
    const { dir } = sharedFolder();
    const file = path.join(dir, 'intake.journal');
    const created = await openOwnFile(file);
    await created.write('a\n');
    await created.close();
    const again = await openOwnFile(file);
    await again.write('b\n');
    await again.close();

    expect(contentAndMode(file)).toEqual(['a\nb\n', fs.statSync(file).mode]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe.skipIf(process.platform === 'win32')('the config directory and config.json', () => {
  it('tightening a mode never follows a symlink swapped in after the check: its target keeps its mode', () => {
    const { dir, victim } = sharedFolder();
    const file = path.join(dir, 'state.json');
    fs.symlinkSync(victim, file);

    expect(() => chmodNoFollow(file, 0o600)).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    expect(fs.statSync(victim).mode & 0o777).toBe(0o644);
    fs.rmSync(file);
    fs.writeFileSync(file, '{}', { mode: 0o644 });
    chmodNoFollow(file, 0o600);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it("are opened O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, by profile changes too (not conf's writer)", async () => {
    const { dir } = sharedFolder();
    const paths = resolvePaths({ PETCTL_CONFIG_DIR: path.join(dir, 'petctl') });
    const store = await openProfileStore(paths);
    await store.add('qa', 'https://qa.example.org/v1');
    const open = vi.spyOn(fs, 'openSync');
    const rename = vi.spyOn(fs, 'renameSync');

    await store.add('eu', 'https://eu.example.org/v1');

    const { O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
    const created = open.mock.calls.filter(([, flags]) => typeof flags !== 'number' || (flags & O_CREAT) !== 0);
    expect(created).toHaveLength(1);
    const [temp, flags, mode] = created[0]!;
    expect(String(temp)).toMatch(/config\.json\.[0-9a-f]{16}\.tmp$/);
    expect((flags as number) & (O_CREAT | O_EXCL | O_NOFOLLOW)).toBe(O_CREAT | O_EXCL | O_NOFOLLOW);
    expect(mode).toBe(0o600);
    expect(rename.mock.calls).toEqual([[temp, paths.configFile]]);
    expect(Object.keys((JSON.parse(fs.readFileSync(paths.configFile, 'utf8')) as { profiles: object }).profiles)).toEqual(['qa', 'eu']);
  });
});

/** Made by another user (uid 65534): refused by each writer as other_owner, its content, mode and owner left as they were. */
describe.skipIf(process.platform === 'win32' || !isRoot)("what another user owns", () => {
  const theirs = (target: string, mode: number, text?: string) => {
    if (text === undefined) fs.mkdirSync(target);
    else fs.writeFileSync(target, text);
    fs.chmodSync(target, mode);
    fs.chownSync(target, NOBODY, NOBODY);
    return target;
  };
  const snapshot = (target: string) => {
    const stat = fs.statSync(target);
    return [stat.mode, stat.uid, stat.isFile() ? fs.readFileSync(target, 'utf8') : ''];
  };
  it.each<[string, (dir: string) => string, (target: string) => unknown]>([
    ["another user's file: refused by an atomic write", (dir) => theirs(path.join(dir, 'state.json'), 0o600, '{}\n'), (file) => writeFileAtomic(file, '{"x":1}\n')],
    [
      "another user's directory at the lock name is refused, not taken over (old enough to be stale)",
      (dir) => {
        const lock = theirs(path.join(dir, 'pets.json.lock'), 0o755);
        fs.utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
        return lock;
      },
      (lock) => withFileLock(lock.slice(0, -'.lock'.length), () => {}),
    ],
    ["another user's file is refused on the opened descriptor (0666)", (dir) => theirs(path.join(dir, 'intake.journal'), 0o666, 'theirs\n'), (file) => openOwnFile(file)],
    ["another user's config directory is refused, never tightened", (dir) => theirs(path.join(dir, 'petctl'), 0o755), (config) => ensurePrivateDir(config)],
  ])('%s', async (_title, make, act) => {
    const target = make(sharedFolder().dir);
    const before = snapshot(target);
    await expect((async () => act(target))()).rejects.toMatchObject({ code: 'unsafe_file', problem: { kind: 'other_owner', uid: NOBODY } });
    expect(snapshot(target)).toEqual(before);
  });
});
