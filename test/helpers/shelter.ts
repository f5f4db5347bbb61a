import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'vitest';
import { runCli, tempDir } from './cli';
import { storedPets } from './sandbox-data';
import { startSandbox } from '../../src/sandbox/server';

/** A sandbox with a data file, a config dir, and petctl bound to both (the Enterprise key: no waiting). */
export async function shelter(t: Pick<TestContext, 'onTestFinished'>) {
  const dir = tempDir();
  const dataFile = path.join(dir, 'sandbox-data.json');
  const sandbox = await startSandbox({ port: 0, dataFile });
  const seeded = storedPets(dataFile).length;
  t.onTestFinished(() => sandbox.close());
  const petctl = (args: string[], input?: string) =>
    runCli(['--base-url', sandbox.baseUrl, ...args], { env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-enterprise' }, input });
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  /** The animals the import created: name -> how many times. */
  const created = () => {
    const counts = new Map<string, number>();
    for (const pet of storedPets(dataFile).slice(seeded)) counts.set(pet.name, (counts.get(pet.name) ?? 0) + 1);
    return counts;
  };
  return { dir, petctl, write, created, dataFile, seeded, baseUrl: sandbox.baseUrl };
}
