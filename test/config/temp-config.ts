import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { type PetctlPaths, resolvePaths } from '../../src/config/paths';
import { openProfileStore } from '../../src/config/profiles';

const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

/** Paths under a fresh temporary directory; the config directory itself does not exist yet. */
export function tempPaths(): PetctlPaths {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-config-'));
  roots.push(root);
  return resolvePaths({ PETCTL_CONFIG_DIR: path.join(root, 'petctl') });
}

/** A profile store opened on fresh temporary paths. */
export async function tempStore() {
  const paths = tempPaths();
  return { paths, store: await openProfileStore(paths) };
}

export function readConfigFile(paths: PetctlPaths): unknown {
  return JSON.parse(fs.readFileSync(paths.configFile, 'utf8'));
}

export function modeOf(file: string): number {
  return fs.statSync(file).mode & 0o777;
}
