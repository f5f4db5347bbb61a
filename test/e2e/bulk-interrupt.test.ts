import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliOptions, ok, runCli, setupE2e, tempDir } from '../helpers/cli';
import { importSummary, ndjsonRows, rowsFile } from '../helpers/import-run';
import { storedPets } from '../helpers/sandbox-data';
import { creator } from '../helpers/pet-creator';
import type { Reply } from '../helpers/scripted-server';
import { openTerminal } from '../helpers/tmux';
import { startSandbox } from '../../src/sandbox/server';

/**
 * Nothing lost, nothing twice: imports interrupted (Ctrl-C once in a terminal, twice) and killed at many points,
 * then rerun, checked against what the server holds.
 */

const SUMMARY = /created (\d+), skipped 0, rejected 0, invalid 0, unknown 0 in ([\d.]+)s \((\d+)\/min\)/;

describe('Ctrl-C against a slow server', () => {
  it('Ctrl-C in a terminal: the request in flight finishes, the summary, then how many rows a rerun sends; the rerun sends exactly those', async (t) => {
    const create = creator();
    const slow: Reply = (request, res) => setTimeout(() => create(request, res), 300);
    const { server, key, configDir, petctl } = await setupE2e(t, slow);
    const file = rowsFile(configDir, 'intake.ndjson', 100, 'P');
    const tty = openTerminal(t, ['--base-url', server.baseUrl, 'pets', 'add', '--file', file, '--concurrency', '1'], { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }, { width: 120 });
    await tty.waitFor(/import \[[#.]+\] [3-9]\/100 /, { timeoutMs: 20_000 });
    tty.press('C-c');
    expect(await tty.exitCode(20_000)).toBe(130);

    const text = tty.text();
    const created = Number(SUMMARY.exec(text)?.[1]);
    expect(server.requests).toHaveLength(created);
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    expect(lines[lines.findIndex((line) => SUMMARY.test(line)) + 1]).toBe(`rerun the same command to send the ${100 - created} rows not sent yet`);
    expect(text).toContain('petctl: stopping: no new requests; waiting for the ones in flight');

    const rerun = await ok(petctl(['pets', 'add', '--file', file, '--concurrency', '4']));
    expect(server.requests).toHaveLength(100);
    expect(rerun.stderr).toMatch(new RegExp(`^created ${100 - created}, skipped ${created}, `, 'm'));
  });

  it('a second Ctrl-C stops waiting: the row in flight becomes outcome_unknown, ends by SIGINT; a rerun leaves it alone', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, { hang: true });
    const file = path.join(configDir, 'pets.ndjson');
    fs.writeFileSync(file, '{"name":"A","categoryId":1}\n{"name":"B","categoryId":2}\n');

    const first = await petctl(['pets', 'add', '--file', file, '--concurrency', '1', '-o', 'ndjson'], {
      onSpawn: (child) =>
        void server.received(1).then(() => {
          child.kill('SIGINT');
          setTimeout(() => child.kill('SIGINT'), 400);
        }),
    });

    expect(first).toMatchObject({ code: null, signal: 'SIGINT' });
    expect(ndjsonRows(first.stdout)).toEqual([{ row: 1, line: 1, ok: false, error: { code: 'outcome_unknown', message: expect.stringContaining('sent, but no answer came'), status: 0 } }]);
    expect(first.stderr).toMatch(/^created 0, skipped 0, rejected 0, invalid 0, unknown 1 in /m);

    server.reply(creator({ firstId: 7 }));
    const second = await petctl(['pets', 'add', '--file', file, '--concurrency', '1']);
    expect(second.code).toBe(7);
    expect(second.stderr).toMatch(/^created 1, skipped 0, rejected 0, invalid 0, unknown 1 in /m);
    expect(server.requests.map((r) => JSON.parse(r.body).name)).toEqual(['A', 'B']);
  });
});

it.for([
  { signal: 'SIGKILL', flags: [] },
  // A --new import that did not finish is resumed by the same command: the rest of its rows, each created once
  // (that an earlier import's rows are left alone: test/bulk/journal.test.ts, a --new import that did not end).
  { signal: 'SIGINT', flags: ['--new'] },
] as const)('killed at many points, then rerun: every row created at most once, and created or reported outcome_unknown: $signal $flags', { timeout: 60_000 }, async ({ signal, flags }, t) => {
  const dir = tempDir();
  const dataFile = path.join(dir, 'server-data.json');
  let posts = 0;
  const sandbox = await startSandbox({ port: 0, dataFile, log: (line) => void (line.startsWith('POST') && (posts += 1)) });
  t.onTestFinished(() => sandbox.close());
  const rows = 80;
  const file = path.join(dir, 'pets.ndjson');
  fs.writeFileSync(file, Array.from({ length: rows }, (_, i) => `{"name":"${signal}-${i + 1}","categoryId":${(i % 4) + 1}}`).join('\n'));
  const run = (onSpawn?: CliOptions['onSpawn']) =>
    runCli(['--base-url', sandbox.baseUrl, 'pets', 'add', '--file', file, '-o', 'ndjson', ...flags], { onSpawn, env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-enterprise' } });

  const outcomes: string[] = [];
  // Killed after each number of POSTs (-1: during start-up), then one run finishes; every row checked against the
  // sandbox's data file.
  for (const point of [-1, 0, 1, 3, 7, 12, 2, 5]) {
    const start = posts;
    const result = await run((child) => {
      if (point < 0) return void setTimeout(() => child.kill(signal), 60);
      const poll = setInterval(() => {
        if (posts - start < point && child.exitCode === null) return;
        clearInterval(poll);
        child.kill(signal);
      }, 2);
    });
    outcomes.push(`after ${point} POSTs: ${result.code ?? result.signal}, ${ndjsonRows(result.stdout).length} rows reported`);
    if (result.signal === null) expect([0, 7, 130], outcomes.join('; ')).toContain(result.code);
  }
  const final = await run();
  expect([0, 7], `${outcomes.join('; ')}; final: ${final.stderr}`).toContain(final.code);
  const byName = new Map<string, Array<{ id: number | bigint }>>();
  for (const pet of storedPets(dataFile)) byName.set(pet.name, [...(byName.get(pet.name) ?? []), pet]);
  for (const [name, copies] of byName) expect(copies, `${name} created ${copies.length} times`).toHaveLength(1);

  const reported = ndjsonRows(final.stdout);
  expect(reported).toHaveLength(rows);
  for (const result of reported) {
    const name = `${signal}-${result.row}`;
    // Never silently lost: created with the server's id, or outcome_unknown.
    if (result.ok) expect(byName.get(name)?.[0]?.id, name).toBe(result.pet!.id);
    else expect(result.error?.code, name).toBe('outcome_unknown');
  }
  const { created, skipped, unknown } = importSummary(final);
  expect(created + skipped + unknown).toBe(rows);
  if (flags.length > 0) expect(final.stderr).toContain('this --new import resumes the one that did not finish');
});
