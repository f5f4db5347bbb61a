import fs from 'node:fs';
import path from 'node:path';
import { type PetctlPaths, resolvePaths } from '../../src/config/paths';
import { openProfileStore, type ProfileStore } from '../../src/config/profiles';
import { type ResolvedTarget, resolveTarget } from '../../src/config/target';
import { configDirWith } from '../helpers/cli';
import { tempDir } from '../helpers/temp-dir';

/** Paths under a fresh temporary directory; the config directory itself does not exist yet. */
export function tempPaths(): PetctlPaths {
  return resolvePaths({ PETCTL_CONFIG_DIR: path.join(tempDir(), 'petctl') });
}

/** A profile store on fresh paths; `config`, when given, is written to config.json first, as by hand. */
export async function tempStore(config?: object | string) {
  const paths = config === undefined ? tempPaths() : resolvePaths({ PETCTL_CONFIG_DIR: configDirWith(config) });
  return { paths, store: await openProfileStore(paths) };
}

export function readConfigFile(paths: PetctlPaths): unknown {
  return JSON.parse(fs.readFileSync(paths.configFile, 'utf8'));
}

export function modeOf(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

export const SANDBOX_DATA = '/home/shelter/.config/petctl/sandbox-data.json';

type TargetOptions = Omit<Parameters<typeof resolveTarget>[1], 'sandboxDataFile' | 'env'> & { env?: NodeJS.ProcessEnv };

/** resolveTarget with a sandbox data file and, unless given, an empty environment. */
export function target(store: ProfileStore, options: TargetOptions = {}): ResolvedTarget {
  return resolveTarget(store, { sandboxDataFile: SANDBOX_DATA, ...options, env: options.env ?? {} });
}
