import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { openFileStore } from '../../../src/api/limits/file-store';
import { limitStoreContract } from './store-contract';

const BASE = 'https://api.example.org/v1';
const KEY = 'pk_test_contract_file';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

limitStoreContract('the state file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-contract-'));
  dirs.push(dir);
  const file = path.join(dir, 'state.json');
  return {
    acrossMachines: false,
    toleranceMs: 0,
    async open({ skewMs = 0 } = {}) {
      const now = () => Date.now() + skewMs;
      return { store: openFileStore(file, BASE, KEY, now), now };
    },
    // Another key's write at that time is when the file drops what has gone stale.
    async keptAt(at) {
      await openFileStore(file, BASE, 'another key', () => at).update(() => ({ entry: { probeUntil: at + 1_000 }, result: undefined }));
      return (await openFileStore(file, BASE, KEY, () => at).read()) !== undefined;
    },
  };
});
