import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliResult, runCli, tempDir } from '../helpers/cli';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/server';
import { rowsFile } from '../helpers/import-run';

/**
 * An import at a plan's limit, the sandbox's windows shortened to 3 s. Asserted are the
 * counts the contract promises; the rate is timing, printed here and measured in bench/bulk.mjs.
 */

const MINUTE_MS = 3000;
const PER_MINUTE = 60;

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

interface Logged {
  at: number;
  method: string;
  status: number;
}

async function startLimitedSandbox(): Promise<{ sandbox: RunningSandbox; log: Logged[]; dir: string }> {
  const dir = tempDir();
  const log: Logged[] = [];
  sandbox = await startSandbox({
    port: 0,
    minuteMs: MINUTE_MS,
    log: (line) => {
      const [method, , status] = line.split(' ');
      log.push({ at: Date.now(), method: method!, status: Number(status) });
    },
  });
  return { sandbox, log, dir };
}

function importWith(base: RunningSandbox, configDir: string, file: string, key = 'sandbox-free', flags: string[] = []): Promise<CliResult> {
  return runCli(['--base-url', base.baseUrl, 'pets', 'add', '--file', file, '-o', 'ndjson', ...flags], {
    env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key },
    timeoutMs: 60_000,
  });
}

async function namesOnServer(base: RunningSandbox): Promise<string[]> {
  const names: string[] = [];
  // The sandbox lists in ascending id order, at most 100 a page, and has no paging: read its data through the API by id instead.
  const response = await fetch(`${base.baseUrl}/pets?limit=100`, { headers: { authorization: 'Bearer sandbox-enterprise' } });
  for (const pet of (await response.json()) as Array<{ name: string }>) names.push(pet.name);
  return names;
}

function rate(log: Logged[], rows: number): string {
  const posts = log.filter((entry) => entry.method === 'POST' && entry.status === 201);
  const spanMs = posts.at(-1)!.at - posts[0]!.at;
  // Windows are fixed: n rows need ceil(n / limit) - 1 full windows between the first request and the last.
  const idealMs = (Math.ceil(rows / PER_MINUTE) - 1) * MINUTE_MS;
  return `${rows} rows in ${spanMs} ms; the plan allows them in ${idealMs} ms (${((idealMs / spanMs) * 100).toFixed(0)}% of the allowed rate)`;
}

describe('pacing against the sandbox (Free: 60 per 3 s window)', () => {
  it('one import: every row created once, at most one 429, never banned', async () => {
    const { sandbox: base, log, dir } = await startLimitedSandbox();
    const file = rowsFile(dir, 'solo', 150, 'solo-');

    const result = await importWith(base, dir, file);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^created 150, skipped 0, rejected 0, invalid 0, unknown 0 in /m);
    const tooMany = log.filter((entry) => entry.status === 429);
    expect(tooMany.length).toBeLessThanOrEqual(1);
    expect(log.filter((entry) => entry.method === 'POST' && entry.status === 201)).toHaveLength(150);
    console.log(`one import: ${rate(log, 150)}; 429s: ${tooMany.length}`);
  }, 60_000);

  it('two imports at once with the same key: at most two 429s together, never banned, every row of both created once', async () => {
    const { sandbox: base, log, dir } = await startLimitedSandbox();
    // Each with its own journal: imports of one journal take turns, and these must run at once.
    const importOwn = (name: string) => importWith(base, dir, rowsFile(dir, name, 70, `${name}-`), undefined, ['--journal', path.join(dir, `${name}.journal`)]);
    const [a, b] = await Promise.all([importOwn('first'), importOwn('second')]);

    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const tooMany = log.filter((entry) => entry.status === 429);
    expect(tooMany.length).toBeLessThanOrEqual(2);
    expect(log.filter((entry) => entry.method === 'POST' && entry.status === 201)).toHaveLength(140);
    console.log(`two imports: ${rate(log, 140)}; 429s: ${tooMany.length}`);
  }, 60_000);

  it('an import beside a shell loop of petctl pets list: together within the limit, never banned', async () => {
    const { sandbox: base, log, dir } = await startLimitedSandbox();
    const file = rowsFile(dir, 'beside', 100, 'beside-');
    let importing = true;
    const loop = (async () => {
      const results: CliResult[] = [];
      while (importing) {
        results.push(
          await runCli(['--base-url', base.baseUrl, 'pets', 'list', '--limit', '1'], { env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-free' } }),
        );
      }
      return results;
    })();
    const result = await importWith(base, dir, file);
    importing = false;
    const lists = await loop;

    expect(result.code, result.stderr).toBe(0);
    expect(lists.length).toBeGreaterThan(0);
    for (const list of lists) expect(list.code, list.stderr).toBe(0);
    expect(log.filter((entry) => entry.status === 429).length).toBeLessThanOrEqual(2);
    const names = await namesOnServer(base);
    expect(names.filter((name) => name.startsWith('beside-')).length).toBeGreaterThan(0);
  }, 90_000);
});
