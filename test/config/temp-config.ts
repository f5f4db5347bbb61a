import fs from 'node:fs';
import path from 'node:path';
import { type PetctlPaths, resolvePaths } from '../../src/config/paths';
import { openProfileStore } from '../../src/config/profiles';
import { tempDir } from '../helpers/temp-dir';

/** Paths under a fresh temporary directory; the config directory itself does not exist yet. */
export function tempPaths(): PetctlPaths {
  return resolvePaths({ PETCTL_CONFIG_DIR: path.join(tempDir(), 'petctl') });
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
