import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, describe, expect, it } from 'vitest';
import { type CliOptions, expectCleanError, setupE2e, tempDir } from '../helpers/cli';
import { json } from '../helpers/scripted-server';

/**
 * XDG_CACHE_HOME where another user (uid 65534; as root only petctl's rule keeps the files) made
 * petctl/responses first: the cache is not used, one warning, nothing outside it removed or chmodded.
 */

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const posix = process.platform !== 'win32';
if (posix && !isRoot) {
  if (process.env.CI === 'true') throw new Error('test/e2e/cache-ownership.test.ts must run as root under CI=true: it chowns folders to another user (65534)');
  console.warn('test/e2e/cache-ownership.test.ts: not root, so the cases of a cache folder another user made (chown 65534) are skipped');
}

const PETS = [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }];
const PRINTED = '1\tRex\t1\tavailable\n';

/** A folder of the user's (~/proj, or ~/.config/petctl) that a planted symlink leads to. */
function victimFolder() {
  const dir = tempDir('petctl-victim-');
  fs.chmodSync(dir, 0o755);
  // The last one is an expired entry in the cache's own name and form.
  const entry = `${'a'.repeat(64)}.json`;
  fs.writeFileSync(path.join(dir, 'config.json'), '{"profiles":{"prod":{}}}\n', { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'state.json'), '{}\n', { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"proj"}\n', { mode: 0o644 });
  fs.writeFileSync(path.join(dir, entry), JSON.stringify({ storedAt: 0, expiresAt: 1, status: 200, headers: {}, text: '[]' }), { mode: 0o600 });
  const snapshot = () => ({
    mode: fs.statSync(dir).mode,
    files: fs.readdirSync(dir).map((name) => ({ name, mode: fs.statSync(path.join(dir, name)).mode, text: fs.readFileSync(path.join(dir, name), 'utf8') })),
  });
  const before = snapshot();
  expect(before.files.map((file) => file.name).sort()).toEqual([entry, 'config.json', 'package.json', 'state.json']);
  return { dir, before, snapshot };
}

async function setup(t: TestContext) {
  const e2e = await setupE2e(t, json(200, PETS));
  const cacheHome = tempDir('petctl-cache-home-');
  const root = path.join(cacheHome, 'petctl');
  const responses = path.join(root, 'responses');
  const petctl = (args: string[], options: CliOptions = {}) => e2e.petctl(args, { ...options, env: { XDG_CACHE_HOME: cacheHome, ...options.env } });
  /** The name of this target's folder, as a run with a cache of its own makes it. */
  const targetName = async (): Promise<string> => {
    const own = tempDir('petctl-cache-own-');
    expect((await petctl(['pets', 'list', '--cache', '1s'], { env: { XDG_CACHE_HOME: own } })).code).toBe(0);
    const [name] = fs.readdirSync(path.join(own, 'petctl', 'responses'));
    return name!;
  };
  return { ...e2e, cacheHome, root, responses, petctl, targetName };
}

describe.skipIf(!posix).concurrent('the response cache is its own', () => {
  it.skipIf(!isRoot)(
    "another user made petctl/responses (0777) and swaps the target's folder for a symlink between two runs: nothing behind it is removed or chmodded",
    async (t) => {
      const { petctl, server, cacheHome, root, responses, targetName } = await setup(t);
      const name = await targetName();
      fs.chmodSync(cacheHome, 0o777);
      fs.mkdirSync(responses, { recursive: true });
      for (const dir of [root, responses]) {
        fs.chownSync(dir, NOBODY, NOBODY);
        fs.chmodSync(dir, 0o777);
      }
      const warning = `warning: not using the response cache at ${responses}: ${root} is owned by another user (uid ${NOBODY})\n`;

      const first = await petctl(['pets', 'list', '--cache', '1s']);
      expect(first).toMatchObject({ code: 0, stdout: PRINTED, stderr: warning });

      const victim = victimFolder();
      const target = path.join(responses, name);
      fs.rmSync(target, { recursive: true, force: true });
      fs.symlinkSync(victim.dir, target);
      const second = await petctl(['pets', 'list', '--cache', '1s']);
      expect(second).toMatchObject({ code: 0, stdout: PRINTED, stderr: warning });

      expect(victim.snapshot()).toEqual(victim.before);
      expect(fs.readdirSync(responses)).toEqual([name]);
      expect(fs.lstatSync(target).isSymbolicLink()).toBe(true);
      for (const dir of [root, responses]) expect(fs.statSync(dir)).toMatchObject({ uid: NOBODY, mode: fs.constants.S_IFDIR | 0o777 });
      // The cache out of use: each run sent its request.
      expect(server.requests).toHaveLength(3);
    },
  );

  it('cache clear removes only its own entries: not a stray file, not through a symlinked folder, not in another user\'s folder', async (t) => {
    const { petctl, responses } = await setup(t);
    expect((await petctl(['pets', 'list', '--cache', '1m'])).code).toBe(0);
    const [name] = fs.readdirSync(responses);
    const stray = path.join(responses, name!, 'notes.json');
    fs.writeFileSync(stray, '{"mine":true}\n');
    const victim = victimFolder();
    fs.symlinkSync(victim.dir, path.join(responses, 'b'.repeat(32)));
    const foreign = path.join(responses, 'c'.repeat(32));
    const foreignEntry = path.join(foreign, `${'c'.repeat(64)}.json`);
    if (isRoot) {
      fs.mkdirSync(foreign, { mode: 0o700 });
      fs.writeFileSync(foreignEntry, '{}', { mode: 0o600 });
      fs.chownSync(foreignEntry, NOBODY, NOBODY);
      fs.chownSync(foreign, NOBODY, NOBODY);
    }

    const cleared = await petctl(['cache', 'clear']);
    expect(cleared).toMatchObject({ code: 0, stdout: '', stderr: `Removed 1 cached answer from ${responses}.\n` });
    expect(fs.readdirSync(path.join(responses, name!))).toEqual(['notes.json']);
    expect(victim.snapshot()).toEqual(victim.before);
    if (isRoot) expect(fs.readFileSync(foreignEntry, 'utf8')).toBe('{}');

    // A cache root another user could change is refused: exit 1, nothing removed.
    expect((await petctl(['pets', 'list', '--limit', '1', '--cache', '1m'])).code).toBe(0);
    const entries = fs.readdirSync(path.join(responses, name!));
    fs.chmodSync(path.dirname(responses), 0o777);
    const refused = await petctl(['cache', 'clear']);
    expect(refused.code).toBe(1);
    expectCleanError(refused);
    expect(refused.stderr).toContain(`error: refusing to use ${path.dirname(responses)}: other users can write to it (mode 0777) (unsafe_file)`);
    expect(fs.readdirSync(path.join(responses, name!))).toEqual(entries);
  });
});
