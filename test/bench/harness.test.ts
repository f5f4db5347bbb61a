import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir';

/** bench/index.mjs copied beside stand-in modules into a scratch folder, run as `npm run bench` would; no timing asserted. */
const benchDir = fileURLToPath(new URL('../../bench/', import.meta.url));

function benchFolder(modules: Record<string, string>): string {
  const dir = tempDir();
  for (const file of ['index.mjs', 'report.mjs']) fs.copyFileSync(path.join(benchDir, file), path.join(dir, file));
  for (const [name, source] of Object.entries(modules)) fs.writeFileSync(path.join(dir, name), source);
  return dir;
}

function runHarness(dir: string, args: string[] = [], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [path.join(dir, 'index.mjs'), ...args], {
    encoding: 'utf8',
    timeout: 20_000,
    env: { ...process.env, ...env },
  });
}

const okModule = `export async function run({ quick }) {
  return [{ figure: 'ok figure quick=' + quick, value: 3, unit: 'x', baseline: { name: 'base', value: 1 }, ratio: 3, target: '<= 1x', met: false }];
}`;

describe('npm run bench (bench/index.mjs)', () => {
  // CI judges that benchmarks work, not their times.
  it("one table of every module's rows, exit 0 on missed targets; names pick modules, --quick reaches them", () => {
    const dir = benchFolder({ 'a.mjs': okModule, 'b.mjs': okModule.replace('ok figure', 'second figure') });
    const { status, stdout } = runHarness(dir);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^figure +value +baseline \(same run\) +ratio +target +met$/m);
    expect(stdout).toMatch(/ok figure quick=false +3\.00 x +base: 1\.00 x +3\.00x +<= 1x +NO/);
    expect(stdout).toMatch(/second figure quick=false/);
    const only = runHarness(dir, ['b', '--quick']);
    expect(only.status).toBe(0);
    expect(only.stdout).toContain('second figure quick=true');
    expect(only.stdout).toContain('--quick');
    expect(only.stdout).not.toContain('ok figure');
    const unknown = runHarness(dir, ['nope']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('error: no benchmark named nope in bench/');
  });

  it('a module that throws, returns no rows or hangs is a crashed row; the others run, exit 1; one without run() is skipped', () => {
    const dir = benchFolder({
      'a-crash.mjs': "export async function run() { throw new Error('the sandbox did not start\\nsecond line'); }",
      'empty.mjs': 'export async function run() { return []; }',
      'hang.mjs': 'export function run() { return new Promise(() => setInterval(() => {}, 1000)); }',
      'helper.mjs': 'export const x = 1;',
      'ok.mjs': okModule,
    });
    const { status, stdout, stderr } = runHarness(dir, [], { BENCH_MODULE_TIMEOUT_MS: '300' });
    expect(status).toBe(1);
    expect(stdout).toContain('bench/a-crash.mjs (crashed)');
    expect(stdout).toContain('- bench/a-crash.mjs (crashed): crashed: the sandbox did not start');
    expect(stdout).not.toContain('second line');
    expect(stdout).toContain('crashed: run() returned no rows');
    expect(stdout).toContain('- bench/hang.mjs (crashed): crashed: did not finish within 0.3 s');
    expect(stdout).toContain('ok figure quick=false');
    expect(stdout).not.toContain('helper');
    expect(stderr).toContain('bench/helper.mjs ... skipped (no run export)');
  });
});
