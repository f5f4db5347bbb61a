import fs from 'node:fs';
import { expect, it } from 'vitest';

/** package.json decides on every install script the lock file marks, so npm 11 installs without its allowScripts warning. */

const read = (name: string) => JSON.parse(fs.readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

const manifest = read('package.json') as { allowScripts?: Record<string, boolean> };
const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
const withScripts = Object.entries(lock.packages)
  .filter(([where, entry]) => where !== '' && entry.hasInstallScript === true)
  .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));

it("install scripts: every dependency with an install script has a decision in package.json allowScripts; esbuild's stays off", () => {
  for (const name of withScripts) expect(typeof manifest.allowScripts?.[name], name).toBe('boolean');
  // Its platform binary comes from its optional dependency.
  expect(withScripts).toContain('esbuild');
  expect(manifest.allowScripts?.esbuild).toBe(false);
});
