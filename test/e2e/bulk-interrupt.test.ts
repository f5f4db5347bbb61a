import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliResult, runCli, setupE2e, tempDir } from '../helpers/cli';
import { importSummary, ndjsonRows } from '../helpers/import-run';
import { storedPets } from '../helpers/sandbox-data';
import type { RecordedRequest } from '../helpers/scripted-server';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/server';

/**
 * Nothing lost, nothing twice: imports interrupted (Ctrl-C once, twice) and
 * killed (SIGINT, SIGKILL) at many points, then rerun, checked against what
 * the server holds.
 */

/** The X-RateLimit-* headers the specification puts on every answer: a generous window. */
function rateHeaders(): Record<string, string> {
  return { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '900', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 60) };
}

describe('Ctrl-C against a slow server', () => {
  it('the first Ctrl-C stops sending and waits for the request in flight: its row is created, the summary printed, then ends by SIGINT (130 in a shell); a rerun sends the rest', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t);
    let id = 100;
    const answerLater = (request: RecordedRequest, res: import('node:http').ServerResponse) => {
      setTimeout(() => res.writeHead(201, { 'content-type': 'application/json', ...rateHeaders() }).end(`{"id":${id++},${request.body.slice(1)}`), 700);
    };
    server.reply(answerLater, answerLater, answerLater, answerLater);
    const file = path.join(configDir, 'pets.ndjson');
    fs.writeFileSync(file, ['A', 'B', 'C', 'D'].map((name) => `{"name":"${name}","categoryId":1}`).join('\n'));

    const first = await petctl(['pets', 'add', '--file', file, '--concurrency', '1', '-o', 'ndjson'], {
      onSpawn: (child) => void server.received(1).then(() => child.kill('SIGINT')),
    });

    expect(first).toMatchObject({ code: null, signal: 'SIGINT' });
    expect(ndjsonRows(first.stdout)).toEqual([{ row: 1, line: 1, ok: true, pet: { id: 100, name: 'A', categoryId: 1 } }]);
    expect(first.stderr).toContain('stopping: no new requests; waiting for the ones in flight');
    expect(first.stderr).toMatch(/^created 1, skipped 0, rejected 0, invalid 0, unknown 0 in /m);
    expect(server.requests).toHaveLength(1);

    const second = await petctl(['pets', 'add', '--file', file, '--concurrency', '1']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/^created 3, skipped 1, /m);
    expect(server.requests.map((r) => JSON.parse(r.body).name)).toEqual(['A', 'B', 'C', 'D']);
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

    server.reply({ status: 201, body: { id: 7, name: 'B', categoryId: 2 }, headers: rateHeaders() });
    const second = await petctl(['pets', 'add', '--file', file, '--concurrency', '1']);
    expect(second.code).toBe(7);
    expect(second.stderr).toMatch(/^created 1, skipped 0, rejected 0, invalid 0, unknown 1 in /m);
    expect(server.requests.map((r) => JSON.parse(r.body).name)).toEqual(['A', 'B']);
  });
});

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/**
 * Runs the same import again and again, killing each run with `signal` once
 * the server has received the next number of POSTs from it (-1: 60 ms after
 * start, during start-up), then lets one run finish; checks every row
 * against the sandbox's data file.
 */
async function killAndRerun(signal: NodeJS.Signals, killPoints: number[]): Promise<void> {
  const dir = tempDir();
  const dataFile = path.join(dir, 'server-data.json');
  let posts = 0;
  sandbox = await startSandbox({ port: 0, dataFile, log: (line) => void (line.startsWith('POST') && (posts += 1)) });
  const rows = 80;
  const tag = `${signal}-${Date.now()}`;
  const file = path.join(dir, 'pets.ndjson');
  fs.writeFileSync(file, Array.from({ length: rows }, (_, i) => `{"name":"${tag}-${i + 1}","categoryId":${(i % 4) + 1}}`).join('\n'));
  const run = (options: Parameters<typeof runCli>[1] = {}) =>
    runCli(['--base-url', sandbox!.baseUrl, 'pets', 'add', '--file', file, '-o', 'ndjson'], {
      ...options,
      env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: 'sandbox-enterprise' },
    });

  const outcomes: string[] = [];
  for (const point of killPoints) {
    const start = posts;
    const result = await run({
      onSpawn: (child) => {
        if (point < 0) return void setTimeout(() => child.kill(signal), 60);
        const poll = setInterval(() => {
          if (posts - start < point && child.exitCode === null) return;
          clearInterval(poll);
          child.kill(signal);
        }, 2);
      },
    });
    outcomes.push(`after ${point} POSTs: ${result.code ?? result.signal}, ${ndjsonRows(result.stdout).length} rows reported`);
    // Ended by a signal (SIGKILL; SIGINT, taken or not): no exit code to check. Otherwise 0 or 7, as it finished first.
    if (result.signal === null) expect([0, 7, 130], outcomes.join('; ')).toContain(result.code);
  }
  const final: CliResult = await run();
  expect([0, 7], `${outcomes.join('; ')}; final: ${final.stderr}`).toContain(final.code);
  const pets = storedPets(dataFile).filter((pet) => pet.name.startsWith(`${tag}-`));
  const byName = new Map<string, ReturnType<typeof storedPets>>();
  for (const pet of pets) byName.set(pet.name, [...(byName.get(pet.name) ?? []), pet]);
  // Created at most once.
  for (const [name, copies] of byName) expect(copies, `${name} created ${copies.length} times`).toHaveLength(1);

  const reported = ndjsonRows(final.stdout);
  expect(reported).toHaveLength(rows);
  for (const result of reported) {
    const name = `${tag}-${result.row}`;
    if (result.ok) {
      // Created (now or by an earlier run) and the journal's Pet is the server's.
      expect(byName.get(name)?.[0]?.id, name).toBe(result.pet!.id);
    } else {
      // Never silently lost: the only failure is "outcome unknown", and then the server may or may not hold it.
      expect(result.error?.code, name).toBe('outcome_unknown');
    }
  }
  const { created, skipped, unknown } = importSummary(final);
  expect(created + skipped + unknown).toBe(rows);
}

describe('killed at many points, then rerun: every row created at most once, and created or reported outcome_unknown', () => {
  it('SIGKILL', async () => {
    await killAndRerun('SIGKILL', [-1, 0, 1, 3, 7, 12, 2, 5]);
  }, 60_000);

  it('SIGINT', async () => {
    await killAndRerun('SIGINT', [-1, 0, 1, 3, 7, 12, 2, 5]);
  }, 60_000);
});
