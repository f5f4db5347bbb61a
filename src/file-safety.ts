import fs from 'node:fs';
import { type FileProblem, UnsafeFileError } from './errors';

/** The one rule for files petctl writes, so a folder shared with others cannot turn a write into someone else's: new
 * ones are created O_EXCL|O_NOFOLLOW 0600; an existing one is used only when it is the user's regular file that no one
 * else can write, checked on the open descriptor or just before a rename. Else an UnsafeFileError. */

const POSIX = process.platform !== 'win32';
// Windows has no O_NOFOLLOW (nor POSIX owners); there the checks that need them are skipped.
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const CREATE_NEW = fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW;
// O_NONBLOCK: a FIFO planted at the name must not hang the open.
const READ_NOFOLLOW = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | NOFOLLOW;

type Expected = 'file' | 'directory';

/** Whether another user could have put this there: a symlink, the wrong kind of entry, or another owner (not the mode). */
export function ownershipProblem(stats: fs.Stats, expected: Expected): FileProblem | undefined {
  if (stats.isSymbolicLink()) return { kind: 'symlink' };
  if (expected === 'file' && !stats.isFile()) return { kind: 'not_regular' };
  if (expected === 'directory' && !stats.isDirectory()) return { kind: 'not_directory' };
  if (POSIX && stats.uid !== process.getuid!()) return { kind: 'other_owner', uid: stats.uid };
  return undefined;
}

/** A directory others may write into under the sticky bit (/tmp): one to share, never petctl's to make private. */
export function sharedDirectoryProblem(stats: fs.Stats): FileProblem | undefined {
  return POSIX && (stats.mode & 0o1002) === 0o1002 ? { kind: 'shared_directory', mode: stats.mode } : undefined;
}

function fileProblem(stats: fs.Stats, expected: Expected): FileProblem | undefined {
  const problem = ownershipProblem(stats, expected);
  if (problem) return problem;
  if (POSIX && (stats.mode & 0o022) !== 0) return { kind: 'writable_by_others', mode: stats.mode };
  return undefined;
}

/** What keeps the folder at `dir` from passing the rule; only its last name is not followed (callers walk down). */
export function folderProblem(dir: string): FileProblem | 'absent' | undefined {
  if (!POSIX) {
    const stats = fs.lstatSync(dir, { throwIfNoEntry: false });
    return stats === undefined ? 'absent' : ownershipProblem(stats, 'directory');
  }
  let fd: number;
  try {
    fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'absent';
    if (code === 'ELOOP' || code === 'EMLINK') return { kind: 'symlink' };
    // Linux says ENOTDIR for a symlink under O_DIRECTORY|O_NOFOLLOW. ENOTDIR is also a file above
    // `dir` (then lstat fails too): that one is the caller's error, reported as the open's.
    const stats = code === 'ENOTDIR' ? lstatOrUndefined(dir) : undefined;
    if (stats) return ownershipProblem(stats, 'directory') ?? { kind: 'not_directory' };
    throw error;
  }
  return usingFd(fd, () => fileProblem(fs.fstatSync(fd), 'directory'));
}

export function usingFd<T>(fd: number, use: () => T): T {
  try {
    return use();
  } finally {
    fs.closeSync(fd);
  }
}

/** Removes `file` only when it passes the rule (checked on a no-follow descriptor); returns whether it was removed. */
export function removeOwnFile(file: string): boolean {
  try {
    if (withOwnFile(file, () => true) === undefined) return false;
  } catch (error) {
    if (error instanceof UnsafeFileError) return false;
    throw error;
  }
  fs.rmSync(file, { force: true });
  return true;
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

/** Throws UnsafeFileError unless nothing is at `file` or it passes the rule; `modes: false` for lock directories (umask's mode). */
export function assertOwnFile(file: string, expected: Expected = 'file', options: { modes?: boolean } = {}): void {
  const stats = fs.lstatSync(file, { throwIfNoEntry: false });
  if (stats === undefined) return;
  const problem = options.modes === false ? ownershipProblem(stats, expected) : fileProblem(stats, expected);
  if (problem) throw new UnsafeFileError(file, problem);
}

/** A symlink swapped in since the check makes the open fail. */
export function chmodNoFollow(file: string, mode: number): void {
  const fd = fs.openSync(file, READ_NOFOLLOW);
  usingFd(fd, () => fs.fchmodSync(fd, mode));
}

/** Creates `file` (0600) for writing, failing when anything, a symlink included, is already there. Returns its descriptor. */
export function createExclusive(file: string): number {
  return fs.openSync(file, CREATE_NEW | fs.constants.O_WRONLY, 0o600);
}

export function createExclusiveFile(file: string): Promise<fs.promises.FileHandle> {
  return fs.promises.open(file, CREATE_NEW | fs.constants.O_WRONLY, 0o600);
}

/** Random, so that a file planted in advance cannot stop a write (the exclusive create makes it harmless); not
 * node:crypto, which would cost every command its load (docs/performance.md). */
export function tempPathFor(file: string): string {
  const random = () => Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0');
  return `${file}.${random()}${random()}.tmp`;
}

/** Opens `file` for reading and appending, created (exclusively, 0600) when absent; the rule checked on the descriptor. */
export async function openOwnFile(file: string): Promise<fs.promises.FileHandle> {
  const { O_RDWR, O_APPEND } = fs.constants;
  for (let attempt = 0; ; attempt++) {
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(file, O_RDWR | O_APPEND | NOFOLLOW);
    } catch (error) {
      const refused = noFollowRefusal(file, error);
      if (refused) throw refused;
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      try {
        handle = await fs.promises.open(file, CREATE_NEW | O_RDWR | O_APPEND, 0o600);
      } catch (createError) {
        // Something appeared at the name in between: look at it again.
        if ((createError as NodeJS.ErrnoException).code === 'EEXIST' && attempt === 0) continue;
        throw createError;
      }
    }
    const problem = fileProblem(await handle.stat(), 'file');
    if (problem === undefined) return handle;
    await handle.close();
    throw new UnsafeFileError(file, problem);
  }
}

/** A symlink or a directory at the name is refused. */
function noFollowRefusal(file: string, error: unknown): UnsafeFileError | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  // Linux says ELOOP for a symlink under O_NOFOLLOW, the BSDs EMLINK.
  if (code === 'ELOOP' || code === 'EMLINK') return new UnsafeFileError(file, { kind: 'symlink' });
  if (code === 'EISDIR') return new UnsafeFileError(file, { kind: 'not_regular' });
  return undefined;
}

/** The text of `file` (undefined when nothing is there), read only when its no-follow descriptor passes the rule. */
export function readOwnFile(file: string): string | undefined {
  return withOwnFile(file, (fd) => fs.readFileSync(fd, 'utf8'));
}

/** Undefined when nothing is there. */
function withOwnFile<T>(file: string, use: (fd: number) => T): T | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, READ_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw noFollowRefusal(file, error) ?? error;
  }
  return usingFd(fd, () => {
    const problem = fileProblem(fs.fstatSync(fd), 'file');
    if (problem) throw new UnsafeFileError(file, problem);
    return use(fd);
  });
}
