import path from 'node:path';
import envPaths from 'env-paths';

export interface PetctlPaths {
  /** Directory (mode 0700) holding config.json, state.json and the sandbox's data. */
  dir: string;
  configFile: string;
  /** Rate-limit state per base URL and key: kept out of conf, which is not safe for concurrent writers. */
  stateFile: string;
  sandboxDataFile: string;
  /** Answers kept by --cache (mode 0700): nothing in it is needed, `petctl cache clear` empties it. */
  cacheDir: string;
}

export function limitsFileOf(dataFile: string): string {
  return `${dataFile}.limits.json`;
}

/**
 * PETCTL_CONFIG_DIR, or the OS's config directory (what conf would pick for "petctl"); the cache in
 * XDG_CACHE_HOME/petctl when set (on every system, as gh does), or the OS's cache directory.
 */
export function resolvePaths(env: NodeJS.ProcessEnv): PetctlPaths {
  const os = envPaths('petctl', { suffix: '' });
  const dir = env.PETCTL_CONFIG_DIR ? path.resolve(env.PETCTL_CONFIG_DIR) : os.config;
  const cache = env.XDG_CACHE_HOME;
  return {
    dir,
    configFile: path.join(dir, 'config.json'),
    stateFile: path.join(dir, 'state.json'),
    sandboxDataFile: path.join(dir, 'sandbox-data.json'),
    cacheDir: cache && path.isAbsolute(cache) ? path.join(cache, 'petctl') : os.cache,
  };
}
