import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_STORED_AHEAD_MS } from '../../src/api/limits/entry';
import { limitId } from '../../src/api/limits/store';
import { type CliResult, setupE2e } from '../helpers/cli';
import { json } from '../helpers/scripted-server';

/**
 * Times read from the state file are checked: a planted blockedUntil (not a number, or beyond what
 * the service could have said) is dropped with one warning, never waited for, never printed. The
 * same in a real redis-server, and a TIME reply that is not two integers: test/api/limits/redis-store.test.ts.
 */

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const PLANTED: Array<[string, () => unknown]> = [
  ['1e300', () => 1e300],
  ['"NaN"', () => 'NaN'],
  ['a string', () => 'next week'],
  ['a negative', () => -86_400_000],
  ['beyond now + a day + the longest wait the service can ask for', () => Date.now() + MAX_STORED_AHEAD_MS + 60_000],
];

function expectProceeded(result: CliResult): void {
  expect(result.code, result.stderr).toBe(0);
  const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning: '));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/^warning: ignored blockedUntil in the rate-limit state at .*: not a time petctl could have stored/);
  expect(result.stdout + result.stderr).not.toMatch(/NaN|Invalid|e\+\d|banned until|Try again/);
}

describe.concurrent('a planted blockedUntil in state.json', () => {
  it.for(PLANTED)('%s: the command proceeds, one warning, nothing printed of it', async ([, planted], t) => {
    const { server, key, configDir, petctl } = await setupE2e(t, json(200, [PET]));
    const id = await limitId(server.baseUrl, key);
    fs.writeFileSync(path.join(configDir, 'state.json'), JSON.stringify({ version: 1, limits: { [id]: { blockedUntil: planted(), reason: 'key_banned' } } }), { mode: 0o600 });
    // profile show only reads; pets list then writes its claim, and the planted value is gone from the file.
    const shown = await petctl(['profile', 'show']);
    expect(shown.stdout).toContain('none seen on this machine');
    expectProceeded(shown);
    expectProceeded(await petctl(['pets', 'list']));
    expect(server.requests).toHaveLength(1);
  });
});
