import { homedir } from 'node:os';
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
  const dir = env.PETCTL_CONFIG_DIR ? path.resolve(env.PETCTL_CONFIG_DIR) : (linuxDir(env.XDG_CONFIG_HOME, '.config') ?? os.config);
  const cache = env.XDG_CACHE_HOME;
  return {
    dir,
    configFile: path.join(dir, 'config.json'),
    stateFile: path.join(dir, 'state.json'),
    sandboxDataFile: path.join(dir, 'sandbox-data.json'),
    cacheDir: cache && path.isAbsolute(cache) ? path.join(cache, 'petctl') : (linuxDir(undefined, '.cache') ?? os.cache),
  };
}

/** On Linux, the XDG rule env-paths does not keep: a relative XDG_CONFIG_HOME or XDG_CACHE_HOME counts as unset, so
 * petctl's files never land in whatever directory it was run from. */
function linuxDir(xdgHome: string | undefined, underHome: string): string | undefined {
  if (process.platform === 'darwin' || process.platform === 'win32') return undefined;
  return path.join(xdgHome && path.isAbsolute(xdgHome) ? xdgHome : path.join(homedir(), underHome), 'petctl');
}
