import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkConfigFiles } from '../../src/config/permissions';
import { modeOf, tempPaths } from './temp-config';

describe.skipIf(process.platform === 'win32')('checkConfigFiles', () => {
  it('a missing directory or file is left alone, silently (petctl creates them private)', () => {
    const paths = tempPaths();
    const warnings: string[] = [];

    checkConfigFiles(paths, (message) => warnings.push(message));

    expect(warnings).toEqual([]);
    expect(fs.existsSync(paths.dir)).toBe(false);
  });

  it('private ones are left alone; group- or world-accessible ones are tightened, one warning each', () => {
    const paths = tempPaths();
    fs.mkdirSync(paths.dir, { mode: 0o700 });
    fs.writeFileSync(paths.configFile, '{}', { mode: 0o600 });
    fs.writeFileSync(paths.stateFile, '{}');
    fs.chmodSync(paths.stateFile, 0o604);
    fs.writeFileSync(paths.sandboxDataFile, '{}');
    fs.chmodSync(paths.sandboxDataFile, 0o660);
    const warnings: string[] = [];

    checkConfigFiles(paths, (message) => warnings.push(message));

    expect(warnings).toEqual([
      `${paths.stateFile} was accessible to other users (mode 0604); changed it to 0600`,
      `${paths.sandboxDataFile} was accessible to other users (mode 0660); changed it to 0600`,
    ]);
    expect([modeOf(paths.dir), modeOf(paths.configFile), modeOf(paths.stateFile), modeOf(paths.sandboxDataFile)]).toEqual([0o700, 0o600, 0o600, 0o600]);
  });

  it('an owner-only mode tighter than 0600 (0400) is not loosened', () => {
    const paths = tempPaths();
    fs.mkdirSync(paths.dir, { mode: 0o700 });
    fs.writeFileSync(paths.configFile, '{}', { mode: 0o400 });
    const warnings: string[] = [];

    checkConfigFiles(paths, (message) => warnings.push(message));

    expect(warnings).toEqual([]);
    expect(modeOf(paths.configFile)).toBe(0o400);
  });
});
