import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { expect, it } from 'vitest';
import { openProfileStore } from '../../src/config/profiles';
import { tempDir } from '../helpers/temp-dir';
import { modeOf, tempPaths } from './temp-config';

const run = promisify(execFile);

/** A petctl-like process on the real profile store: from a common start, `count` profiles and keys, each a locked write. */
const WRITER = `
import { resolvePaths } from './src/config/paths';
import { openProfileStore } from './src/config/profiles';
const [dir, prefix, count, startAt] = process.argv.slice(2);
const store = await openProfileStore(resolvePaths({ PETCTL_CONFIG_DIR: dir }));
// conf loaded now, so that every writer's first write starts at the same moment.
await import('conf');
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
for (let i = 0; i < Number(count); i++) {
  const name = prefix + '-' + i;
  await store.add(name, 'https://' + name + '.example.org/v1');
  await store.setKey(name, 'key-' + name);
  await store.setKey('sandbox', 'sandbox-' + name);
}
process.stdout.write('done');
`;

it('petctl processes writing profiles at the same time keep every change, and the file stays private', async () => {
  // Node 20 cannot run TypeScript: the writer and the store it imports are bundled.
  const writer = path.join(tempDir(), 'profile-writer.mjs');
  await build({
    stdin: { contents: WRITER, resolveDir: fileURLToPath(new URL('../..', import.meta.url)), loader: 'ts' },
    outfile: writer,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    // proper-lockfile and graceful-fs are CommonJS and require() Node's built-ins.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  const paths = tempPaths();
  const startAt = String(Date.now() + 1500);
  const writers = ['w0', 'w1', 'w2', 'w3'];
  const runs = writers.map((w) => run(process.execPath, [writer, paths.dir, w, '15', startAt], { timeout: 60_000 }));
  for (const { stdout } of await Promise.all(runs)) expect(stdout).toBe('done');

  const store = await openProfileStore(paths);
  const added = writers.flatMap((w) => Array.from({ length: 15 }, (_, i) => `${w}-${i}`));
  for (const name of added) {
    expect(store.get(name), name).toEqual({ name, baseUrl: `https://${name}.example.org/v1`, apiKey: `key-${name}`, builtIn: false });
  }
  expect(store.list().map((p) => p.name)).toEqual(['sandbox', ...added.sort()]);
  expect(store.get('sandbox')?.apiKey).toMatch(/^sandbox-w\d-\d+$/);
  expect([modeOf(paths.configFile), modeOf(paths.dir)]).toEqual([0o600, 0o700]);
  expect(fs.readdirSync(paths.dir)).toEqual(['config.json']);
}, 90_000);
