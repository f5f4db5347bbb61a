import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_VERSION, cleanEnv } from '../helpers/cli';

/** `npm pack` and an offline `npm install -g`. --ignore-scripts: prepack would rebuild dist/ under the other tests. */

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../..', import.meta.url));

let work: string;
let tarball: string;
let entries: string[];
let petctlBin: string;
let prefix: string;
let installOutput: { stdout: string; stderr: string };

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-pack-'));
  const npmEnv = cleanEnv({ npm_config_cache: path.join(work, 'npm-cache'), npm_config_update_notifier: 'false' });
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: repo, env: npmEnv, timeout: 60_000 });
  const [manifest] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  tarball = path.join(work, manifest!.filename);
  entries = (await run('tar', ['-tzf', tarball])).stdout.split('\n').filter((line) => line !== '');

  prefix = path.join(work, 'prefix');
  installOutput = await run('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball], {
    cwd: work,
    env: npmEnv,
    timeout: 90_000,
  });
  petctlBin = path.join(prefix, 'bin', 'petctl');
}, 120_000);

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('npm pack and a global install of the tarball', () => {
  it('names the tarball after the version; ships the bundle, the shim, the docs and what the build made, nothing of the repository', () => {
    expect(path.basename(tarball)).toBe(`petctl-${PACKAGE_VERSION}.tgz`);
    for (const file of [
      'bin/petctl.js',
      'dist/petctl.cjs',
      'dist/llhttp_simd.wasm',
      'dist/llhttp.wasm',
      'package.json',
      'README.md',
      'dist/help.json',
      'dist/help.cjs',
      'dist/man/petctl.1',
      'dist/man/petctl-pets-add.1',
      'dist/guides/rate-limits.json',
    ]) {
      expect(entries).toContain(`package/${file}`);
    }
    for (const shell of ['bash', 'zsh', 'fish']) expect(entries).toContain(`package/dist/petctl.${shell}`);
    expect(entries.filter((entry) => /^package\/(src|test|node_modules|scripts|bench)\//.test(entry))).toEqual([]);
    expect(entries.filter((entry) => entry.includes('/.cache/') || entry.endsWith('.tgz'))).toEqual([]);
  });

  it('installs quietly: no install script in the package, no warning from npm, no run-time dependency', () => {
    expect(installOutput.stderr).toBe('');
    expect(installOutput.stdout).not.toMatch(/warn|install scripts|allowScripts/i);
    const installed = path.join(prefix, 'lib', 'node_modules', 'petctl');
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
      dependencies?: Record<string, string>;
    };
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) {
      expect(manifest.scripts?.[script], script).toBeUndefined();
    }
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(fs.existsSync(path.join(installed, 'node_modules'))).toBe(false);
  });

  it('man petctl and man petctl-pets-add read from the install prefix', () => {
    const man = (page: string) =>
      execFileSync('man', ['-M', path.join(prefix, 'share', 'man'), page], { encoding: 'utf8', env: { PATH: process.env.PATH, MANPAGER: 'cat', MANWIDTH: '100', LANG: 'C.UTF-8' } });
    expect(man('petctl')).toMatch(/^PETCTL\(1\)/m);
    expect(man('petctl')).toContain('--max-wait');
    expect(man('petctl-pets-add')).toMatch(/^PETCTL-PETS-ADD\(1\)/m);
  });

  it('the installed petctl works: --version, -V and version, a guide, help, and pets list against its built-in sandbox', async () => {
    const configDir = path.join(work, 'config');
    const env = cleanEnv({ PETCTL_CONFIG_DIR: configDir, COLUMNS: '72' });
    const petctl = (args: string[], extra: Record<string, string> = {}) =>
      run(petctlBin, args, { cwd: work, env: { ...env, ...extra }, timeout: 20_000 });
    const versions = [['--version'], ['-V'], ['-q', '--version'], ['version']];
    for (const args of versions) expect((await petctl(args)).stdout).toBe(`${PACKAGE_VERSION}\n`);
    const guide = await petctl(['help', 'bulk-import']);
    expect(guide.stdout).toMatch(/^Bulk import/);
    expect(guide.stderr).toBe('');
    expect((await petctl(['pets', 'add', '--help'])).stdout).toContain('Usage: petctl pets add');

    const list = await petctl(['pets', 'list', '-o', 'json', '--limit', '3']);
    expect(JSON.parse(list.stdout)).toEqual([
      { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      { id: 2, name: 'Bella', categoryId: 1, status: 'pending' },
      { id: 3, name: 'Max', categoryId: 1, status: 'sold' },
    ]);
    expect(list.stderr).toBe('');
    expect(fs.existsSync(path.join(configDir, 'sandbox-data.json'))).toBe(true);
    // undici's parser for CPUs without WebAssembly SIMD.
    const withoutSimd = await petctl(['pets', 'list', '-o', 'json', '--limit', '1'], { UNDICI_NO_WASM_SIMD: '1' });
    expect(JSON.parse(withoutSimd.stdout)).toEqual([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]);
  }, 60_000);
});

it('swaps the bundle in whole: a petctl started during the build finds the old bundle or the new one, never none', async () => {
  const bundle = path.join(repo, 'dist', 'petctl.cjs');
  let reads = 0;
  const missed: string[] = [];
  let building = true;
  const build = run(process.execPath, [path.join(repo, 'scripts', 'build.mjs')], { cwd: repo, timeout: 120_000 }).finally(() => (building = false));
  while (building) {
    try {
      if (fs.readFileSync(bundle, 'latin1').length === 0) missed.push('empty');
      reads += 1;
    } catch (error) {
      missed.push((error as NodeJS.ErrnoException).code ?? String(error));
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await build;
  expect(reads).toBeGreaterThan(0);
  expect(missed).toEqual([]);
  expect(fs.readdirSync(path.join(repo, 'dist')).filter((name) => name.startsWith('.build-'))).toEqual([]);
}, 150_000);
