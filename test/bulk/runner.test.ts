import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import type { RequestHooks } from '../../src/api/request';
import { JournalWriter, readJournal } from '../../src/bulk/journal';
import { rowWords } from '../../src/output/import-end';
import { RecordIndex, type RowIdentity, type RowPlan } from '../../src/bulk/records';
import type { RowResult } from '../../src/bulk/outcome';
import type { LevelChange } from '../../src/bulk/in-flight';
import { type RunnerOptions, runImport } from '../../src/bulk/runner';
import { InterruptedError, NetworkError, RateLimitError, errorForStatus } from '../../src/errors';
import type { NewPet, Pet } from '../../src/schemas/pet';
import { tempDir } from '../helpers/temp-dir';

/** The runner alone: a fake createPet plays the HTTP core's part (beforeSend, then onAnswer). */

const TARGET = 't';
const identity = (name: string) => ({ source: '/in.ndjson', content: [name, '1', '', 1] as RowIdentity['content'] });

type Behaviour = (newPet: NewPet, hooks: RequestHooks) => Promise<Pet>;
type Options = Partial<Pick<RunnerOptions, 'signal' | 'stop' | 'concurrency' | 'onLevel'>> & {
  plans?: Record<string, RowPlan>;
};

/** `names` imported one row each through `send`: the outcome, the rows reported, and each row's state in the journal. */
async function run(names: string[], send: Behaviour, { plans = {}, ...options }: Options = {}) {
  const journal = await JournalWriter.open(path.join(tempDir(), 'j.ndjson'), TARGET);
  const results: RowResult[] = [];
  const rows = names.map((name, index) => {
    const plan = plans[name] ?? { action: 'send' as const };
    return { row: index + 1, line: index + 1, newPet: { name, categoryId: 1 }, identity: identity(name), plan };
  });
  const outcome = await runImport({
    rows: (async function* () {
      yield* rows;
    })(),
    words: rowWords('https://api.example.org/v1'),
    journal,
    concurrency: 1,
    now: Date.now,
    send,
    sleep,
    stop: new AbortController().signal,
    signal: new AbortController().signal,
    onResult: (result) => void results.push(result),
    ...options,
  });
  await journal.close();
  const index = new RecordIndex();
  await readJournal(journal.file, TARGET, index);
  const entries: Record<number, string> = {};
  names.forEach((name, i) => {
    const entry = index.lookup(identity(name), false);
    if (entry) entries[i + 1] = entry.state;
  });
  return { outcome, results, entries };
}

/** Sent, then answered `status`, as the HTTP core hands an answer to onAnswer. */
async function answered(hooks: RequestHooks, status: number, remaining?: number): Promise<void> {
  await hooks.beforeSend?.();
  const headers: Record<string, string> = remaining === undefined ? {} : { 'x-ratelimit-remaining': String(remaining) };
  hooks.onAnswer?.({ status, text: '', headers, header: (name) => headers[name] });
}

let nextId = 1;
const creates: Behaviour = async (newPet, hooks) => {
  await answered(hooks, 201);
  return { id: nextId++, ...newPet };
};

it('journals created, rejected (with the Error body) and reports every row', async () => {
  const { outcome, results, entries } = await run(['A', 'bad', 'C'], async (newPet, hooks) => {
    if (newPet.name !== 'bad') return creates(newPet, hooks);
    await answered(hooks, 400);
    const body = { code: 'invalid_category', message: 'no', status: 400 };
    throw errorForStatus(400, 'no', { code: 'invalid_category', status: 400, body });
  });
  expect(entries).toEqual({ 1: 'created', 2: 'rejected', 3: 'created' });
  expect(results.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual(['ok', 'invalid_category', 'ok']);
  expect(outcome).toEqual({ stoppedBy: undefined, interrupted: false, reported: 3 });
});

it('a 429 that cannot be waited out: the row is unsent, sending stops, nothing more is taken', async () => {
  let calls = 0;
  const { outcome, results, entries } = await run(['A', 'B', 'C'], async (newPet, hooks) => {
    calls += 1;
    if (newPet.name !== 'B') return creates(newPet, hooks);
    await answered(hooks, 429);
    throw new RateLimitError('rate limited', { code: 'rate_limited', status: 429, retryAt: Date.now() + 60_000 });
  });
  expect([calls, results.length, entries]).toEqual([2, 1, { 1: 'created', 2: 'unsent' }]);
  expect(outcome.stoppedBy).toBeInstanceOf(RateLimitError);
});

it.each([
  ['sent and never answered: outcome_unknown, journal left at "sent", sending stops', new NetworkError('socket hang up', { sent: true }), 'sent', ['outcome_unknown']],
  ['a connection that was never made is not "sent"', new NetworkError('connection refused', { sent: false }), 'unsent', []],
  ['a 5xx answer to a POST: outcome_unknown, sending stops', errorForStatus(503, 'try later', { code: 'unavailable', status: 503 }), 'sent', ['outcome_unknown']],
  ['a second Ctrl-C while on the wire: outcome_unknown', new InterruptedError(), 'sent', ['outcome_unknown']],
] as const)('%s', async (_title, error, state, codes) => {
  const { outcome, results, entries } = await run(['A', 'B'], async (_newPet, hooks) => {
    await hooks.beforeSend?.();
    throw error;
  });
  expect(entries).toEqual({ 1: state });
  expect(results.map((r) => !r.ok && r.error.code)).toEqual(codes);
  expect(outcome.stoppedBy).toBe(error);
});

it('rows created earlier are skipped with the journal\'s Pet and time; "sent" rows are reported unknown; the rest are sent', async () => {
  const at = '2026-11-25T14:02:00.000Z';
  const pet = { id: 41, name: 'A', categoryId: 1 };
  const plans: Record<string, RowPlan> = {
    A: { action: 'skip', record: { ...identity('A'), state: 'created', pet, at }, changed: false },
    B: { action: 'unknown', record: { ...identity('B'), state: 'sent', at } },
  };
  const sent: string[] = [];
  const recording: Behaviour = (newPet, hooks) => creates(newPet, hooks).finally(() => sent.push(newPet.name));
  const { results } = await run(['A', 'B', 'C'], recording, { plans });
  expect(sent).toEqual(['C']);
  const fates = results.map((r) => (r.ok ? ('skipped' in r ? 'skipped' : 'created') : r.error.code));
  expect(fates).toEqual(['skipped', 'outcome_unknown', 'created']);
  expect(results[0]).toEqual({ row: 1, line: 1, ok: true, skipped: 'already_created', pet, at });
});

it('an aborted signal (a second Ctrl-C, SIGTERM) before sending: nothing is sent, the outcome says interrupted', async () => {
  const sent: string[] = [];
  const recording: Behaviour = (newPet, hooks) => creates(newPet, hooks).finally(() => sent.push(newPet.name));
  const { outcome, entries } = await run(['A', 'B'], recording, { signal: AbortSignal.abort() });
  expect([sent, entries, outcome.interrupted]).toEqual([[], {}, true]);
});

it('the first Ctrl-C: a request waiting for the rate limit gives up unsent; one on the wire finishes', async () => {
  const stop = new AbortController();
  const { results, entries, outcome } = await run(
    ['wire', 'waiting'],
    async (newPet, hooks) => {
      if (newPet.name === 'waiting') {
        await hooks.wait!(60_000, 'rate limit reached');
        return creates(newPet, hooks);
      }
      await hooks.beforeSend?.();
      stop.abort();
      await sleep(50);
      return creates(newPet, { onAnswer: hooks.onAnswer });
    },
    { stop: stop.signal, concurrency: 2 },
  );
  expect([results.map((r) => r.ok), entries, outcome.interrupted]).toEqual([[true], { 1: 'created' }, true]);
});

it('keeps at most --concurrency rows in flight', async () => {
  const wire = { now: 0, most: 0 };
  const names = Array.from({ length: 12 }, (_, i) => `P${i}`);
  await run(names, service(wire), { concurrency: 4 });
  expect(wire.most).toBe(4);
});

it('--concurrency auto: more than 4 in flight while the answers keep their latency and name a window with room', async () => {
  const wire = { now: 0, most: 0 };
  const levels: LevelChange[] = [];
  const names = Array.from({ length: 200 }, (_, i) => `R${i}`);
  const onLevel = (change: LevelChange) => void levels.push(change);
  const { outcome, entries } = await run(names, service(wire, 50_000), { concurrency: 'auto', onLevel });
  expect(outcome.reported).toBe(200);
  expect(Object.values(entries).every((state) => state === 'created')).toBe(true);
  expect(levels[0]).toMatchObject({ from: 4, level: 5, cause: 'latency_held' });
  expect(wire.most).toBeGreaterThan(8);
});

/** A 201 after 5 ms, naming the window's requests left (or none); counts the requests on the wire. */
function service(wire: { now: number; most: number }, remaining?: number): Behaviour {
  return async (newPet, hooks) => {
    await hooks.beforeSend?.();
    wire.most = Math.max(wire.most, (wire.now += 1));
    await sleep(5);
    wire.now -= 1;
    await answered({ onAnswer: hooks.onAnswer }, 201, remaining);
    return { id: nextId++, ...newPet };
  };
}
