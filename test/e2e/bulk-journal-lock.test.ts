import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { type TestContext, describe, expect, it } from 'vitest';
import { type CliResult, jsonError, setupE2e } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';
import type { RecordedRequest } from '../helpers/scripted-server';
import { shelter } from '../helpers/shelter';
import { openTerminal } from '../helpers/tmux';

/**
 * One import at a time per journal (twins, triplets, one beside another waiting out a 429): every row
 * created once; each run ends 0, or 1 with journal_busy when its --max-wait ran out.
 */

const SUMMARY = /^created (\d+), skipped (\d+), rejected 0, invalid 0, unknown 0 in /m;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const WAITING = 'waiting for another import of';

/** A run ended well, or was refused before sending anything because the other held the journal. */
function expectDoneOrBusy(result: CliResult): number {
  expect(result.stderr).not.toMatch(/internal_error|outcome_unknown|unexpected failure|    at /);
  if (result.code === 1) {
    // The holder is named when it answers; in a crowd the lock may change hands between the refused bind and the
    // question, and then the refusal names nobody (the named form is pinned by the held-journal test below).
    expect(result.stderr).toMatch(/^error: the journal .+ is in use by another import( \(pid \d+, rows\.csv\))?, which did not finish within --max-wait 1s; nothing sent \(journal_busy\)$/m);
    return 0;
  }
  expect(result.code, result.stderr).toBe(0);
  const match = SUMMARY.exec(result.stderr);
  expect(match, result.stderr).not.toBeNull();
  return Number(match![1]);
}

/** Names the server created, each with how many times. */
function counts(names: string[]): Map<string, number> {
  const seen = new Map<string, number>();
  for (const name of names) seen.set(name, (seen.get(name) ?? 0) + 1);
  return seen;
}

function csv(rows: number, id = (n: number) => `A-${n}`): string {
  return ['Intake No,name,categoryId', ...Array.from({ length: rows }, (_, i) => `${id(i + 1)},Max ${i + 1},1`)].join('\n');
}

/** The sandbox with a data file (the Enterprise key: no waiting), rows.csv, and petctl importing it. */
async function sandboxImport(t: TestContext, rows: number) {
  const { petctl, write, created } = await shelter(t);
  const file = write('rows.csv', csv(rows));
  return { petctl: (globals: string[], flags: string[]) => petctl([...globals, 'pets', 'add', '--file', file, ...flags]), created };
}

// Each story runs once, with --id-column or without: the journal's lock is the same for both.
const ID_COLUMN = ['--id-column', 'Intake No'];

describe.concurrent('imports of one file at the same time', () => {
  it('twins of 100 rows both end 0, the second skipping what the first created; the service holds 100 animals', async (t) => {
    const { petctl, created } = await sandboxImport(t, 100);
    const runs = await Promise.all([petctl([], []), petctl([], [])]);
    const sent = runs.map(expectDoneOrBusy);
    expect(runs.map((run) => run.code)).toEqual([0, 0]);
    expect(sent.reduce((a, b) => a + b, 0)).toBe(100);
    // Off a terminal and without -v, waiting for the other is silent.
    for (const run of runs) expect(run.stderr).not.toContain(WAITING);
    expect(created().size).toBe(100);
    expect([...created().values()].every((times) => times === 1)).toBe(true);
  });

  it('with --id-column: triplets of 30 rows with --max-wait 1 each end 0 or journal_busy; every row created exactly once', async (t) => {
    const { petctl, created } = await sandboxImport(t, 30);
    const runs = await Promise.all([0, 1, 2].map(() => petctl(['--max-wait', '1'], ID_COLUMN)));
    const sent = runs.map(expectDoneOrBusy);
    expect(sent.reduce((a, b) => a + b, 0)).toBe(30);
    expect(created().size).toBe(30);
    expect([...created().values()].every((times) => times === 1)).toBe(true);
  });
});

/** A server that creates every animal (counting them), after answering the first request with a 429 that asks for 5 s. */
async function throttledServer(t: TestContext) {
  const setup = await setupE2e(t);
  const names: string[] = [];
  const create = creator();
  setup.server.reply({ status: 429, headers: { 'retry-after': '5' }, body: { code: 'rate_limited', message: 'Too many requests', status: 429 } });
  const fallback = (request: RecordedRequest, res: ServerResponse) => {
    names.push((JSON.parse(request.body) as { name: string }).name);
    create(request, res);
  };
  for (let i = 0; i < 40; i++) setup.server.reply(fallback);
  return { ...setup, created: () => counts(names) };
}

describe.concurrent('an import started while another waits for the window to reopen', () => {
  it('the second says once whom it waits for (-v), then skips every row the first created', async (t) => {
    const { server, configDir, petctl, created } = await throttledServer(t);
    fs.writeFileSync(path.join(configDir, 'rows.csv'), csv(20));
    const args = ['pets', 'add', '--file', 'rows.csv', '--concurrency', '1'];
    let firstPid = 0;
    let second: Promise<CliResult> | undefined;
    const first = await petctl(args, {
      cwd: configDir,
      onSpawn: (child) => {
        firstPid = child.pid!;
        // Started while the first waits out the 429's Retry-After.
        void server.received(1).then(() => (second = petctl(['-v', ...args], { cwd: configDir })));
      },
    });
    const last = await second!;

    expect(first.stderr).toContain('petctl: retry 1/4 in 5s: HTTP 429\n');
    expect(expectDoneOrBusy(first)).toBe(20);
    expect(last.stderr.split(`petctl: waiting for another import of rows.csv (pid ${firstPid}) to finish\n`)).toHaveLength(2);
    expect(last.code, last.stderr).toBe(0);
    expect(last.stderr).toMatch(/^created 0, skipped 20, /m);
    expect(created().size).toBe(20);
    expect([...created().values()].every((times) => times === 1)).toBe(true);
  });
});

describe('a journal another import holds (its first request never answered, later ones created)', () => {
  it('--max-wait 0: journal_busy, exit 1, naming the journal, the pid and the file, nothing sent, with -o json one JSON line; --dry-run does not wait: it says the journal is in use and shows its figures as they stand; Ctrl-C while waiting: the usual interrupted exit, nothing sent', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    server.reply({ hang: true });
    fs.writeFileSync(path.join(configDir, 'rows.csv'), csv(3));
    let holder: ChildProcess | undefined;
    void petctl(['pets', 'add', '--file', 'rows.csv', '--concurrency', '1'], { cwd: configDir, onSpawn: (child) => (holder = child) });
    await server.received(1);
    const imports = path.join(configDir, 'imports');
    const journal = path.join(imports, fs.readdirSync(imports).find((name) => name.endsWith('.ndjson'))!);
    const inUse = `the journal ${journal} is in use by another import (pid ${holder!.pid}, rows.csv); nothing sent`;

    const busy = await petctl(['--max-wait', '0', 'pets', 'add', '--file', 'rows.csv'], { cwd: configDir });
    expect(busy.code).toBe(1);
    expect(busy.stdout).toBe('');
    expect(busy.stderr).toBe(
      `error: ${inUse} (journal_busy)\n` +
        'hint: run the same command again once that import has finished, or raise --max-wait to wait for it: the rows it created are skipped\n',
    );
    const json = await petctl(['--max-wait', '0', '-o', 'json', 'pets', 'add', '--file', 'rows.csv'], { cwd: configDir });
    expect(json.code).toBe(1);
    expect(jsonError(json)).toEqual({ code: 'journal_busy', message: inUse, status: 0 });

    // The default --max-wait is 60 s: a dry run that waited would outlast the holder's test.
    const dry = await petctl(['pets', 'add', '--file', 'rows.csv', '--dry-run'], { cwd: configDir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`warning: the journal ${journal} is in use by another import of rows.csv (pid ${holder!.pid}): these figures may change when it finishes\n`);
    expect(dry.stdout).toMatch(/^would send 2 of 3 rows: 0 already created, 1 with an unknown outcome, 0 invalid; /);

    const stopped = await petctl(['-v', 'pets', 'add', '--file', 'rows.csv'], {
      cwd: configDir,
      onSpawn: (child) => child.stderr!.on('data', (chunk: string) => void (chunk.includes(WAITING) && child.kill('SIGINT'))),
    });
    expect(stopped).toMatchObject({ code: null, signal: 'SIGINT' });
    expect(stopped.stderr).toContain(`petctl: waiting for another import of rows.csv (pid ${holder!.pid}) to finish`);
    expect(server.requests).toHaveLength(1);
    expect(holder!.exitCode).toBeNull();
    holder!.kill('SIGKILL');
  });
});

describe('on a terminal', () => {
  it('the waiting import says once whom it waits for, then goes on from the journal when the other finishes', async (t) => {
    const { server, configDir, key, petctl } = await setupE2e(t, creator());
    // The first import's first answer waits until the terminal shows the line.
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const create = creator({ firstId: 1 });
    server.reply((request, res) => void answered.then(() => create(request, res)));
    const file = path.join(configDir, 'rows.csv');
    fs.writeFileSync(file, csv(3));
    let firstPid = 0;
    const first = petctl(['pets', 'add', '--file', file, '--concurrency', '1'], { onSpawn: (child) => (firstPid = child.pid!) });
    await server.received(1);
    const tty = openTerminal(t, ['--base-url', server.baseUrl, 'pets', 'add', '--file', file], { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }, { width: 120 });
    await tty.waitFor(new RegExp(escape(`petctl: waiting for another import of rows.csv (pid ${firstPid}) to finish`)));
    answer();
    expect((await first).code).toBe(0);
    expect(await tty.exitCode(20_000)).toBe(0);
    expect(tty.text().split(WAITING)).toHaveLength(2);
    expect(tty.text()).toMatch(/created 0, skipped 3, /);
    expect(server.requests).toHaveLength(3);
  });
});
