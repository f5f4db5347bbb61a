import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { openProfileStore } from '../../src/config/profiles';
import { tempDir } from '../helpers/temp-dir';
import { modeOf, tempPaths } from './temp-config';

const run = promisify(execFile);
const fixture = fileURLToPath(new URL('./fixtures/profile-writer.ts', import.meta.url));

let writerScript: string;

// Node 20 cannot run TypeScript, so the writer (and the real store it imports) is bundled with esbuild.
beforeAll(async () => {
  writerScript = path.join(tempDir(), 'profile-writer.mjs');
  await build({
    entryPoints: [fixture],
    outfile: writerScript,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    // proper-lockfile and graceful-fs are CommonJS and require() Node's built-ins.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
}, 60_000);

describe('petctl processes writing profiles at the same time', () => {
  it('keep every change, and the file stays private', async () => {
    const paths = tempPaths();
    const writers = 4;
    const perWriter = 15;
    const startAt = Date.now() + 1500;
    const results = await Promise.all(
      Array.from({ length: writers }, (_, w) =>
        run(process.execPath, [writerScript, paths.dir, `w${w}`, String(perWriter), String(startAt)], { timeout: 60_000 }),
      ),
    );
    for (const { stdout } of results) expect(stdout).toBe('done\n');

    const store = await openProfileStore(paths);
    const expected = ['sandbox'];
    for (let w = 0; w < writers; w++) {
      for (let i = 0; i < perWriter; i++) {
        const name = `w${w}-${i}`;
        expected.push(name);
        expect(store.get(name), name).toEqual({ name, baseUrl: `https://${name}.example.org/v1`, apiKey: `key-${name}`, builtIn: false });
      }
    }
    expect(store.list().map((p) => p.name)).toEqual(expected.sort((a, b) => (a === 'sandbox' ? -1 : b === 'sandbox' ? 1 : a < b ? -1 : 1)));
    expect(store.get('sandbox')?.apiKey).toMatch(/^sandbox-w\d-\d+$/);
    expect(modeOf(paths.configFile)).toBe(0o600);
    expect(modeOf(paths.dir)).toBe(0o700);
    expect(fs.readdirSync(paths.dir)).toEqual(['config.json']);
  }, 60_000);
});
