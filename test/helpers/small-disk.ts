import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A small tmpfs, to make writes fail for real: root writes where permissions say no, but not past a full file system. */

/** Mounts a tmpfs of `size` (e.g. 1m) at `dir`, 0700; false when mounting is not allowed here. */
export function mountSmallDisk(dir: string, size: string): boolean {
  fs.mkdirSync(dir, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' }).status === 0;
}

export function unmountSmallDisk(dir: string): void {
  spawnSync('umount', ['-l', dir]);
}

function canMount(): boolean {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-small-disk-'));
  const probe = path.join(root, 'probe');
  const mounted = mountSmallDisk(probe, '64k');
  if (mounted) spawnSync('umount', [probe]);
  fs.rmSync(root, { recursive: true, force: true });
  return mounted;
}

const mountable = canMount();
if (!mountable) {
  // CI runs as root: there the full-disk tests must run.
  if (process.env.CI === 'true') throw new Error('cannot mount a tmpfs, and CI=true: the full-disk tests must run (as root)');
  console.warn('skipping the full-disk tests: mounting a tmpfs needs root (CAP_SYS_ADMIN)');
}
/** For describe.skipIf: true where a tmpfs cannot be mounted (not root), outside CI. */
export const noSmallDisk = !mountable;

/** Fills the file system holding `dir` to the last byte, with a file named `filler`. */
export function fill(dir: string): void {
  // Appends: called again, it takes whatever room a write in flight gave back since.
  const fd = fs.openSync(path.join(dir, 'filler'), 'a');
  const block = Buffer.alloc(4096, 120);
  try {
    for (;;) fs.writeSync(fd, block);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(fd);
  }
}

/** Room again: removes what `fill` wrote. */
export function unfill(dir: string): void {
  fs.rmSync(path.join(dir, 'filler'));
}
