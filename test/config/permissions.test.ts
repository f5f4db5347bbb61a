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

  it('a missing directory or file is left alone, silently (petctl creates them private)', () => {
    const paths = tempPaths();
    expect(warnings(paths)).toEqual([]);
    expect(fs.existsSync(paths.dir)).toBe(false);
  });

  it('private ones (0400 not loosened) are left alone; group- or world-accessible ones are tightened, one warning each', () => {
    const paths = tempPaths();
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
});
