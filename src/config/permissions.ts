import fs from 'node:fs';
import path from 'node:path';
import { UnsafeFileError } from '../errors';
import { assertOwnFile, chmodNoFollow, ownershipProblem, sharedDirectoryProblem } from '../file-safety';
import { lockPathOf } from '../locked-file';
import { limitsFileOf, type PetctlPaths } from './paths';

/** As ssh checks ~/.ssh: another user's directory or file, or a symlink at one of their names, is refused (a base URL
 * planted there would receive the key); loose modes are tightened and said so (the keys may have been read). */
export function checkConfigFiles(paths: PetctlPaths, warn: (message: string) => void): void {
  if (process.platform === 'win32') return;
  // stat, not lstat: the directory itself may be a symlink of the user's (dotfiles); what it leads to must be theirs.
  const dir = statIfPresent(paths.dir);
  if (dir === undefined) return; // absent: petctl creates it private when it first writes
  const problem = ownershipProblem(dir, 'directory') ?? sharedDirectoryProblem(dir);
  if (problem) throw new UnsafeFileError(paths.dir, problem);
  const files = [paths.configFile, paths.stateFile, paths.sandboxDataFile, limitsFileOf(paths.sandboxDataFile)];
  for (const file of files) {
    assertOwnFile(file, 'file', { modes: false });
    assertOwnFile(lockPathOf(file), 'directory', { modes: false });
  }
  assertOwnFile(path.join(paths.dir, 'imports'), 'directory', { modes: false });
  tighten(paths.dir, dir.mode, 0o700, warn, fs.chmodSync);
  for (const file of files) {
    const stats = fs.lstatSync(file, { throwIfNoEntry: false });
    if (stats) tighten(file, stats.mode, 0o600, warn, chmodNoFollow);
  }
}

/** Only a missing directory is absent: a path through a file is an error on every Node (22 and 24 count it as absent). */
function statIfPresent(dir: string): fs.Stats | undefined {
  try {
    return fs.statSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function tighten(file: string, current: number, wanted: number, warn: (message: string) => void, chmod: (file: string, mode: number) => void): void {
  const mode = current & 0o777;
  if ((mode & 0o077) === 0) return;
  try {
    chmod(file, wanted);
    warn(`${file} was accessible to other users (mode ${octal(mode)}); changed it to ${octal(wanted)}`);
  } catch {
    warn(`${file} is accessible to other users (mode ${octal(mode)}) and could not be changed to ${octal(wanted)}`);
  }
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}
