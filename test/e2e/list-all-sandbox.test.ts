import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSession, tempConfigDir } from '../helpers/cli';
import { writeSandboxData } from '../helpers/sandbox-data';

/**
 * `pets list --all` against the embedded sandbox (the built-in profile), which
 * pages with `Link: </v1/pets?limit=N&after=<last id>[&status=…]>; rel="next"`.
 */

const BIG = '9007199254740993';
const STATUSES = ['available', 'pending', 'sold'];

/** 25 animals, ids 1..24 and 2^53 + 1, statuses in turn. */
function petsJson(): string {
  const ids = [...Array.from({ length: 24 }, (_, index) => String(index + 1)), BIG];
  return `[${ids.map((id, index) => `{"id":${id},"name":"Pet ${id}","categoryId":1,"status":"${STATUSES[index % 3]}"}`).join(',')}]`;
}

function sandboxWith25(t: { onTestFinished(fn: () => void): void }) {
  const configDir = tempConfigDir();
  t.onTestFinished(() => fs.rmSync(configDir, { recursive: true, force: true }));
  writeSandboxData(path.join(configDir, 'sandbox-data.json'), petsJson());
  return cliSession({ env: { PETCTL_CONFIG_DIR: configDir } });
}

describe.concurrent('pets list --all on the sandbox', () => {
  it('lists all 25 animals in pages of 10, ids exact, with no notice', async (t) => {
    const petctl = sandboxWith25(t);
    const result = await petctl(['pets', 'list', '--all', '--limit', '10', '-v']);
    expect(result.code).toBe(0);
    const ids = result.stdout.split('\n').filter(Boolean).map((line) => line.split('\t')[0]);
    expect(ids).toEqual([...Array.from({ length: 24 }, (_, index) => String(index + 1)), BIG]);
    expect(result.stderr.match(/^page \d+: /gm)).toHaveLength(3);
    expect(result.stderr).not.toContain('came without a Link');
  });

  it('keeps the status filter on every page', async (t) => {
    const petctl = sandboxWith25(t);
    const result = await petctl(['pets', 'list', '--all', '--limit', '3', '--status', 'pending', '-o', 'json', '--query', '[].id']);
    expect(result.code).toBe(0);
    expect(result.stdout.replace(/\s+/g, '')).toBe('[2,5,8,11,14,17,20,23]');
  });

  it('without --all prints one page only', async (t) => {
    const petctl = sandboxWith25(t);
    const result = await petctl(['pets', 'list', '--limit', '10']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(10);
  });
});
