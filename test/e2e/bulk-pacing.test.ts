import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli';
import { namedTime } from '../helpers/local-time';
import { storedPets } from '../helpers/sandbox-data';
import { startSandboxProcess } from '../helpers/sandbox-process';
import { startSandbox } from '../../src/sandbox/server';
import { rowsFile } from '../helpers/import-run';

/** Imports at a plan's limits on the sandbox: two at once on one key, and the day's quota used up mid-import. */

it('pacing against the sandbox (Free: 60 per 3 s window): two imports at once with the same key: at most two 429s together, never banned, every row of both created once', { timeout: 60_000 }, async (t) => {
  const dir = tempDir();
  const statuses: Array<{ method: string; status: number }> = [];
  const sandbox = await startSandbox({ port: 0, minuteMs: 3000, log: (line) => statuses.push({ method: line.split(' ')[0]!, status: Number(line.split(' ')[2]) }) });
  t.onTestFinished(() => sandbox.close());
  // Each with its own journal: imports of one journal take turns, and these must run at once.
  const importOwn = (name: string) =>
    runCli(['--base-url', sandbox.baseUrl, 'pets', 'add', '--file', rowsFile(dir, name, 70, `${name}-`), '--journal', path.join(dir, `${name}.journal`)], {
      env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-free' },
      timeoutMs: 60_000,
    });
  const [a, b] = await Promise.all([importOwn('first'), importOwn('second')]);

  expect(a.code, a.stderr).toBe(0);
  expect(b.code, b.stderr).toBe(0);
  expect(statuses.filter((entry) => entry.status === 429).length).toBeLessThanOrEqual(2);
  expect(statuses.filter((entry) => entry.method === 'POST' && entry.status === 201)).toHaveLength(140);
});

const DAY_MS = 24 * 60 * 60 * 1000;

it('the day quota used up mid-import: 80 rows and an invalid one against 50 a day: exit 5 after 50 created, with the count left (the invalid row counted) and the local time to resume; the rerun after the reset creates the other 30 once', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const dataFile = path.join(dir, 'pets.json');
  const file = rowsFile(dir, 'rows.ndjson', 80, 'day-');
  fs.appendFileSync(file, '\n{"name":"","categoryId":1}');
  const configDir = path.join(dir, 'config');
  const env = { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: 'sandbox-enterprise' };

  const first = await startSandboxProcess(['--port', '0', '--data', dataFile, '--enterprise-quota', '1000/50']);
  const port = new URL(first.baseUrl).port;
  const started = Date.now();
  const stopped = await runCli(['--base-url', first.baseUrl, 'pets', 'add', '--file', file, '--skip-invalid'], { env });

  expect(stopped.code, stopped.stderr).toBe(5);
  expect(stopped.stderr).not.toMatch(/^petctl: .*waiting/m);
  expect(stopped.stderr).toContain('line 81 (row 81): name: must not be empty\n');
  expect(stopped.stderr).toMatch(/^created 50, skipped 0, rejected 0, invalid 1, unknown 0 in /m);
  expect(stopped.stderr).toMatch(
    /^error: the rate limit stopped the import: the daily quota is used up; 50 rows created, 31 left; resume at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, in 2[34]h\d\dm: rerun the same command \(quota_exhausted(, HTTP 429)?\)$/m,
  );
  expect(stopped.stderr).not.toMatch(/nothing sent/);
  expect(namedTime(stopped.stderr.slice(stopped.stderr.indexOf('error:')))).toBeGreaterThan(started + DAY_MS - 60_000);
  expect(storedPets(dataFile).filter((pet) => pet.name.startsWith('day-'))).toHaveLength(50);
  await first.stop();

  // The next day: the sandbox's counts start afresh, and every time this machine's state remembers is a day earlier.
  fs.rmSync(`${dataFile}.limits.json`, { force: true });
  const stateFile = path.join(configDir, 'state.json');
  const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { limits: Record<string, Record<string, unknown>> };
  for (const entry of Object.values(state.limits)) {
    for (const field of ['blockedUntil', 'probeUntil', 'untrackedUntil']) if (typeof entry[field] === 'number') entry[field] = (entry[field] as number) - DAY_MS;
    const window = entry.window as { resetAt: number } | undefined;
    if (window) window.resetAt -= DAY_MS;
  }
  fs.writeFileSync(stateFile, JSON.stringify(state));
  const second = await startSandboxProcess(['--port', port, '--data', dataFile, '--enterprise-quota', '1000/50']);
  const resumed = await runCli(['--base-url', second.baseUrl, 'pets', 'add', '--file', file, '--skip-invalid'], { env });
  await second.stop();

  expect(resumed.code, resumed.stderr).toBe(6);
  expect(resumed.stderr).toMatch(/^created 30, skipped 50, rejected 0, invalid 1, unknown 0 in /m);
  const stored = storedPets(dataFile).filter((pet) => pet.name.startsWith('day-'));
  expect(stored.map((pet) => pet.name).sort()).toEqual(Array.from({ length: 80 }, (_, i) => `day-${i + 1}`).sort());
});
