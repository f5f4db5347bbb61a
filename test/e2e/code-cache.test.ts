import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { NODE, cleanEnv, tempDir } from '../helpers/cli';

/**
 * Only a short run writes V8's code cache: after a long one the collector has flushed what start-up needs.
 * A copy of the shim and bundle in a temporary folder, so the repository's cache is left alone.
 */

const repo = fileURLToPath(new URL('../..', import.meta.url));
const install = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-cache-'));
for (const file of ['bin/petctl.js', 'bin/package.json', 'dist/petctl.cjs', 'package.json']) {
  fs.mkdirSync(path.join(install, path.dirname(file)), { recursive: true });
  fs.copyFileSync(path.join(repo, file), path.join(install, file));
}
const bin = path.join(install, 'bin', 'petctl.js');
const cacheDir = path.join(install, 'dist', '.cache');
const cacheFiles = (): string[] => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : []);

afterAll(() => fs.rmSync(install, { recursive: true, force: true }));

it('a long run (the sandbox serving for 3 s) writes no code cache; a short one (help, printed by the program) does', async () => {
  const dir = tempDir();
  const child = spawn(NODE, [bin, 'sandbox', '--port', '0', '--data', path.join(dir, 'pets.json')], {
    env: cleanEnv({ PETCTL_CONFIG_DIR: dir }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  await new Promise((resolve) => setTimeout(resolve, 3000));
  child.kill('SIGINT');
  expect(await exited).toEqual({ code: null, signal: 'SIGINT' });
  expect(cacheFiles()).toEqual([]);

  // Help the program prints (a global flag beside --help, so no captured page answers), the
  // lightest run that loads the bundle. Under 2 s it writes the cache; a CI machine under load
  // can take longer to compile the bundle from source, so it may take a few tries.
  for (let attempt = 0; attempt < 3 && cacheFiles().length === 0; attempt++) {
    const help = spawnSync(NODE, [bin, '-q', '--help'], { env: cleanEnv({ PETCTL_CONFIG_DIR: dir }), encoding: 'utf8', timeout: 20_000 });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: petctl');
  }
  expect(cacheFiles()).toHaveLength(1);
  expect(cacheFiles()[0]).toMatch(/-lite\.bin$/);
}, 30_000);
