import fs from 'node:fs';
import path from 'node:path';
import { UnsafeFileError } from './errors';
import { assertOwnFile, createExclusive, ownershipProblem, sharedDirectoryProblem, tempPathFor, usingFd } from './file-safety';
import { parseJson } from './schemas/json';

/** A file that exists but is not readable JSON: we stop rather than overwrite what it holds. */
export class CorruptFileError extends Error {}

/** Creates the directory readable by its owner only (0700); an existing one of the user's is tightened; another user's, or a shared one (/tmp), refused. */
export function ensurePrivateDir(dir: string): void {
  makeDirs(dir);
  if (process.platform === 'win32') return;
  // Followed (it may be the user's symlink, dotfiles); check and chmod on one descriptor, so no swap redirects it.
  const fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  usingFd(fd, () => {
    const stats = fs.fstatSync(fd);
    const problem = ownershipProblem(stats, 'directory') ?? sharedDirectoryProblem(stats);
    if (problem) throw new UnsafeFileError(dir, problem);
    if ((stats.mode & 0o077) !== 0) fs.fchmodSync(fd, 0o700);
  });
}

export function lockPathOf(file: string): string {
  return `${file}.lock`;
}

/** Runs `fn` holding `<file>.lock`, a directory mkdir makes atomically; proper-lockfile waits for a held one and takes
 * over a stale one. Anything there not the user's directory is refused rather than waited on or taken. */
export function withFileLock<T>(file: string, fn: () => Promise<T> | T): Promise<T> {
  // Takers in this process queue rather than fight over the lock directory, whose retries back off.
  const result = (lockQueues.get(file) ?? Promise.resolve()).then(() => lockAndRun(file, fn));
  lockQueues.set(file, result.then(() => undefined, () => undefined));
  return result;
}

/** Each file's last taker, settled to nothing (no result kept): one entry per file petctl locks, a handful. */
const lockQueues = new Map<string, Promise<void>>();

async function lockAndRun<T>(file: string, fn: () => Promise<T> | T): Promise<T> {
  makeDirs(path.dirname(file));
  const lockPath = lockPathOf(file);
  assertOwnFile(lockPath, 'directory', { modes: false });
  let release = takeFreeLock(lockPath);
  if (release === undefined) {
    // Loaded only for a lock another process holds (its cost: docs/performance.md).
    const { default: lockfile } = await import('proper-lockfile');
    const unlock = await lockfile.lock(file, {
      realpath: false,
      lockfilePath: lockPath,
      stale: STALE_MS,
      retries: { retries: 200, factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true },
      // The default throws from a timer; a compromised lock only means another process took it over.
      onCompromised: () => {},
    });
    release = () => unlock().catch(() => {});
  }
  try {
    return await fn();
  } finally {
    await release();
  }
}

/** A lock directory untouched for this long belongs to a process that died: it is taken over. */
const STALE_MS = 10_000;

/** A free lock taken at once, as proper-lockfile takes it (its waiters see an ordinary lock); undefined when held. */
function takeFreeLock(lockPath: string): (() => unknown) | undefined {
  try {
    fs.mkdirSync(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  const refresh = setInterval(() => {
    const now = new Date();
    fs.utimes(lockPath, now, now, () => {});
  }, STALE_MS / 2);
  refresh.unref();
  return () => {
    clearInterval(refresh);
    try {
      fs.rmdirSync(lockPath);
    } catch {
      // Gone: a process took it over as stale.
    }
  };
}

/** A JSON file, int64s exact (`parse`: JSON.parse for one without, docs/performance.md); undefined when absent. */
export function readJsonFile(file: string, parse: (text: string) => unknown = parseJson): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return parse(text);
  } catch (error) {
    throw new CorruptFileError(`${file} is not valid JSON; fix or remove it`, { cause: error });
  }
}

/** `mkdir -p` with each folder 0700, a folder at a time: Node's recursive mkdir spins forever, deaf to signals, on a
 * path the system will not make (under /proc or /sys), where this fails at once. */
export function makeDirs(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT' || path.dirname(dir) === dir) throw error;
    makeDirs(path.dirname(dir));
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code !== 'EEXIST') throw again;
    }
  }
}

/** A temporary beside `file` (exclusive, 0600: it may hold keys), flushed and renamed over it: readers see the old
 * content or the new. A missing directory is made 0700. */
export function writeFileAtomic(file: string, text: string | Uint8Array, options: { durable?: boolean } = {}): { ino: number; mtimeMs: number } {
  makeDirs(path.dirname(file));
  assertOwnFile(file);
  const temp = tempPathFor(file);
  const fd = createExclusive(temp);
  try {
    const stats = usingFd(fd, () => {
      fs.writeFileSync(fd, text);
      // durable: false skips the flush for files that only hold timings; the rename still makes the write all-or-nothing.
      if (options.durable !== false) fs.fsyncSync(fd);
      return fs.fstatSync(fd);
    });
    // Again at the last moment: the rename replaces the name, never writes through it.
    assertOwnFile(file);
    fs.renameSync(temp, file);
    // The rename keeps the inode: callers watching for other writers compare against these.
    return { ino: stats.ino, mtimeMs: stats.mtimeMs };
  } catch (error) {
    // A full disk or a vanished directory leaves no half-written temporary behind.
    fs.rmSync(temp, { force: true });
    throw error;
  }
}
