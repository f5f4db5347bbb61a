import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkConfigFiles } from '../../src/config/permissions';
import type { PetctlPaths } from '../../src/config/paths';
import { modeOf, tempPaths } from './temp-config';

describe.skipIf(process.platform === 'win32')('checkConfigFiles', () => {
  function warnings(paths: PetctlPaths): string[] {
    const said: string[] = [];
    checkConfigFiles(paths, (message) => said.push(message));
    return said;
  }

  it('missing or private ones (0400 too) are left alone; loose ones are tightened, a warning each', () => {
    const paths = tempPaths();
    // Missing: silently, for petctl creates them private.
    expect(warnings(paths)).toEqual([]);
    expect(fs.existsSync(paths.dir)).toBe(false);
    fs.mkdirSync(paths.dir, { mode: 0o700 });
    const modes = [0o600, 0o604, 0o660];
    [paths.configFile, paths.stateFile, paths.sandboxDataFile].forEach((file, i) => {
      fs.writeFileSync(file, '{}');
      fs.chmodSync(file, modes[i]!);
    });
    expect(warnings(paths)).toEqual([
      `${paths.stateFile} was accessible to other users (mode 0604); changed it to 0600`,
      `${paths.sandboxDataFile} was accessible to other users (mode 0660); changed it to 0600`,
    ]);
    expect([paths.dir, paths.configFile, paths.stateFile, paths.sandboxDataFile].map(modeOf)).toEqual([0o700, 0o600, 0o600, 0o600]);
    fs.chmodSync(paths.configFile, 0o400);
    expect(warnings(paths)).toEqual([]);
    expect(modeOf(paths.configFile)).toBe(0o400);
  });

  it('a config directory shared as /tmp is (sticky, anyone may write) is refused, not made private', () => {
    const paths = tempPaths();
    fs.mkdirSync(paths.dir);
    fs.chmodSync(paths.dir, 0o1777);
    expect(() => warnings(paths)).toThrow(`refusing to use ${paths.dir}: it is a directory shared with other users (mode 1777), as /tmp is`);
    expect(fs.statSync(paths.dir).mode & 0o7777).toBe(0o1777);
  });
});
