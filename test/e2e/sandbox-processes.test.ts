import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

import { parseJson } from '../../src/schemas/json';
import { runCli, tempDir } from '../helpers/cli';
import { storedPets } from '../helpers/sandbox-data';

/**
 * Processes on the built-in profile each start their own server on one data file: every animal stored
 * once, unique ids, the rate-limit counts adding up, the files private.
 */
it('20 petctl pets add at once on the sandbox profile: every animal there once, unique ids, counts shared', async () => {
  const configDir = tempDir();
  const env = { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: 'sandbox-pro' };
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      runCli(['pets', 'add', '--name', `parallel-${i}`, '--category-id', '3', '--status', 'available', '-o', 'json'], { env, timeoutMs: 60_000 }),
    ),
  );
  for (const result of results) expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  const created = results.map((result) => parseJson(result.stdout) as { id: number; name: string });
  expect(new Set(created.map((pet) => pet.id)).size).toBe(20);
  expect(created.map((pet) => pet.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 13 + i));

  const dataFile = path.join(configDir, 'sandbox-data.json');
  const stored = storedPets(dataFile);
  expect(stored).toHaveLength(32);
  for (const pet of created) expect(stored.filter((entry) => entry.id === pet.id)).toEqual([pet]);

  const list = await runCli(['pets', 'list', '--limit', '100'], { env });
  expect(list.stdout.trim().split('\n')).toHaveLength(32);

  // Every request of every process was counted once: 20 adds and 1 list, against the Pro key.
  const limits = JSON.parse(fs.readFileSync(`${dataFile}.limits.json`, 'utf8')) as {
    processes: number[];
    rateLimits: Record<string, { minuteCount: number }>;
  };
  expect(limits.processes).toEqual([]);
  expect(limits.rateLimits['sandbox-pro']?.minuteCount).toBe(21);

  for (const file of [dataFile, `${dataFile}.limits.json`]) expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(fs.statSync(configDir).mode & 0o777).toBe(0o700);
  expect(fs.readdirSync(configDir).filter((name) => name.endsWith('.tmp') || name.endsWith('.lock'))).toEqual([]);
}, 90_000);
