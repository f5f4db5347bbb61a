import fs from 'node:fs';
import type { PetctlPaths } from './paths';

/**
 * petctl writes its files 0600 in a 0700 directory, but a file copied in, or
 * a directory made by hand, may be readable by others, and config.json holds
 * API keys. Every command that opens the config checks and tightens them, and
 * says so: silently fixing it would hide that the key may already have been read.
 */
export function tightenPermissions(paths: PetctlPaths, warn: (message: string) => void): void {
  if (process.platform === 'win32') return;
  tighten(paths.dir, 0o700, warn);
  for (const file of [paths.configFile, paths.stateFile, paths.sandboxDataFile]) tighten(file, 0o600, warn);
}

function tighten(file: string, wanted: number, warn: (message: string) => void): void {
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    return; // absent: petctl creates it private when it first writes it
  }
  if ((mode & 0o077) === 0) return;
  try {
    fs.chmodSync(file, wanted);
    warn(`${file} was accessible to other users (mode ${octal(mode)}); changed it to ${octal(wanted)}`);
  } catch {
    warn(`${file} is accessible to other users (mode ${octal(mode)}) and could not be changed to ${octal(wanted)}`);
  }
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}
