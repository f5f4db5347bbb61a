import path from 'node:path';
import envPaths from 'env-paths';

export interface PetctlPaths {
  /** Directory (mode 0700) holding config.json, state.json and the sandbox's data. */
  dir: string;
  /** Profiles and keys, written through conf. */
  configFile: string;
  /** Rate-limit state per base URL and key: kept out of conf, which is not safe for concurrent writers. */
  stateFile: string;
  /** The built-in sandbox profile's animals. */
  sandboxDataFile: string;
  /** Answers kept by --cache (mode 0700): nothing in it is needed, `petctl cache clear` empties it. */
  cacheDir: string;
}

/** The file beside a sandbox data file that holds its rate-limit counts. */
export function limitsFileOf(dataFile: string): string {
  return `${dataFile}.limits.json`;
}

/** PETCTL_CONFIG_DIR wins; otherwise the OS's config directory (what conf would pick for "petctl"). */
export function resolvePaths(env: NodeJS.ProcessEnv): PetctlPaths {
  const dir = env.PETCTL_CONFIG_DIR ? path.resolve(env.PETCTL_CONFIG_DIR) : envPaths('petctl', { suffix: '' }).config;
  return {
    dir,
    configFile: path.join(dir, 'config.json'),
    stateFile: path.join(dir, 'state.json'),
    sandboxDataFile: path.join(dir, 'sandbox-data.json'),
    cacheDir: cacheDirOf(env),
  };
}

/** XDG_CACHE_HOME/petctl when set (on every system, as gh does); otherwise the OS's cache directory (~/.cache/petctl on Linux). */
function cacheDirOf(env: NodeJS.ProcessEnv): string {
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) return path.join(env.XDG_CACHE_HOME, 'petctl');
  return envPaths('petctl', { suffix: '' }).cache;
}
