import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { NODE, cleanEnv, setupE2e, tempDir } from '../helpers/cli';
import { json, limitHeaders } from '../helpers/scripted-server';

/**
 * Built-ins `pets list` has no use for stay out of start-up (docs/performance.md). Only a short run writes V8's
 * code cache: after a long one the collector has flushed what start-up needs.
 */
const preload = fileURLToPath(new URL('../helpers/report-modules.cjs', import.meta.url));

const NOT_LOADED = [
  // The shim is CommonJS and wraps the bundle itself: no ES module loader, no node:module (and its source maps).
  'NativeModule internal/modules/esm/translators',
  'NativeModule module',
  'NativeModule internal/modules/esm/loader',
  // undici: node:http only where it is used, node:assert only when an invariant fails, no HTTP/2.
  'NativeModule http',
  'NativeModule assert',
  'NativeModule http2',
  // commander's executable subcommands; chalk's supports-color (node:tty) when stdout is a pipe.
  'NativeModule child_process',
  'NativeModule tty',
  // A state file's temporary name and the monotonic clock come without node:crypto and perf_hooks.
  'NativeModule crypto',
  'NativeModule perf_hooks',
  // A free state-file lock without proper-lockfile; stdin not opened; fs/promises (with readline) only to read a file.
  'NativeModule fs/promises',
  'NativeModule readline',
  'NativeModule internal/readline/interface',
  'NativeModule constants',
  // The Redis client (ioredis, behind import()) requires node:tls and node:dns: evaluated only with a state URL.
  'NativeModule tls',
  'NativeModule dns',
];

it('pets list -o json against a server, output piped, claiming from a known window: none of the built-ins it has no use for', async (t) => {
  const { server, configDir, petctl } = await setupE2e(t);
  const pets = [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }];
  const now = Date.now();
  server.reply(json(200, pets, limitHeaders(now, 59, 50)));
  // The second run claims from the window the first learnt, in state.json under its lock.
  expect((await petctl(['pets', 'list', '-o', 'json'])).code).toBe(0);
  server.reply(json(200, pets, limitHeaders(now, 58, 50)));
  const out = path.join(configDir, 'modules.txt');
  const result = await petctl(['pets', 'list', '-o', 'json'], { env: { NODE_OPTIONS: `--require ${preload}`, PETCTL_TEST_MODULES_OUT: out } });
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toEqual(pets);
  const state = JSON.parse(fs.readFileSync(path.join(configDir, 'state.json'), 'utf8'));
  expect(Object.values(state.limits)).toEqual([expect.objectContaining({ window: expect.objectContaining({ limit: 60, remaining: 58 }) })]);
  const loaded = fs.readFileSync(out, 'utf8').split('\n');
  expect(loaded).toContain('NativeModule net');
  // What Node loads for an empty script is Node's (Node 24 sets up its ES module translators for every entry).
  const ours = NOT_LOADED.filter((name) => !bareNodeLoads(configDir).includes(name));
  expect(ours.length).toBeGreaterThan(0);
  expect(loaded.filter((name) => ours.includes(name))).toEqual([]);
});

/** The built-ins the Node that runs petctl loads for an empty CommonJS script, with the same preload. */
function bareNodeLoads(dir: string): string[] {
  const script = path.join(dir, 'empty.cjs');
  const out = path.join(dir, 'bare-modules.txt');
  fs.writeFileSync(script, '');
  execFileSync(NODE, [script], { env: { PATH: process.env.PATH, HOME: os.homedir(), NODE_OPTIONS: `--require ${preload}`, PETCTL_TEST_MODULES_OUT: out } });
  return fs.readFileSync(out, 'utf8').split('\n');
}

const repo = fileURLToPath(new URL('../..', import.meta.url));
const install = tempDir('petctl-cache-');
for (const file of ['bin/petctl.js', 'bin/package.json', 'dist/petctl.cjs', 'package.json']) {
  fs.mkdirSync(path.join(install, path.dirname(file)), { recursive: true });
  fs.copyFileSync(path.join(repo, file), path.join(install, file));
}
const bin = path.join(install, 'bin', 'petctl.js');
const cacheDir = path.join(install, 'dist', '.cache');
const cacheFiles = (): string[] => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : []);

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

  // The lightest run that loads the bundle (a global flag, so no captured page answers); a loaded machine may
  // outlast the cache's time limit, hence a few tries.
  for (let attempt = 0; attempt < 3 && cacheFiles().length === 0; attempt++) {
    const help = spawnSync(NODE, [bin, '-q', '--help'], { env: cleanEnv({ PETCTL_CONFIG_DIR: dir }), encoding: 'utf8', timeout: 20_000 });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: petctl');
  }
  expect(cacheFiles()).toHaveLength(1);
  expect(cacheFiles()[0]).toMatch(/-lite\.bin$/);
}, 30_000);
