import path from 'node:path';
import envPaths from 'env-paths';

/** `dir` (0700) holds config.json, state.json (out of conf, not safe for concurrent writers) and the sandbox's data;
 * `cacheDir` (0700) --cache's answers, which nothing needs. */
export type PetctlPaths = Record<'dir' | 'configFile' | 'stateFile' | 'sandboxDataFile' | 'cacheDir', string>;

export function limitsFileOf(dataFile: string): string {
  return `${dataFile}.limits.json`;
}

/** PETCTL_CONFIG_DIR, or the OS's config directory (as conf would pick); the cache in XDG_CACHE_HOME/petctl when set
 * (on every system, as gh does), or the OS's cache directory. */
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
