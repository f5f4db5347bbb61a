import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Answer } from '../../src/api/answer';
import type { RequestHooks } from '../../src/api/request';
import { JournalWriter, readJournal } from '../../src/bulk/journal';
import { rowWords } from '../../src/output/import-end';
import { RecordIndex, type RowPlan } from '../../src/bulk/records';
import type { RowResult } from '../../src/bulk/results';
import type { LevelChange } from '../../src/bulk/in-flight';
import { type PlannedRow, runImport } from '../../src/bulk/runner';
import { InterruptedError, NetworkError, RateLimitError, errorForStatus } from '../../src/errors';
import type { NewPet, Pet } from '../../src/schemas/pet';
import { tempDir } from '../helpers/temp-dir';

/** The runner alone: a fake createPet plays the HTTP core's part (beforeSend, then onAnswer). */

const TARGET = 't';

async function journal(): Promise<JournalWriter> {
  return JournalWriter.open(path.join(tempDir(), 'j.ndjson'), TARGET);
}

const identity = (name: string) => ({ source: '/in.ndjson', content: [name, '1', '', 1] as [string, string, string, number] });

function inputRows(names: string[], plans: Record<string, RowPlan> = {}): PlannedRow[] {
  return names.map((name, index) => ({ row: index + 1, line: index + 1, newPet: { name, categoryId: 1 }, identity: identity(name), plan: plans[name] ?? { action: 'send' } }));
}

async function* stream<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

type Behaviour = (newPet: NewPet, hooks: RequestHooks) => Promise<Pet>;

async function run(names: string[], behaviour: Behaviour, options: { plans?: Record<string, RowPlan>; signal?: AbortSignal; stop?: AbortSignal; concurrency?: number | 'auto'; onLevel?: (change: LevelChange) => void } = {}) {
  const writer = await journal();
  const results: RowResult[] = [];
  const outcome = await runImport({
    rows: stream(inputRows(names, options.plans)),
    words: rowWords('https://api.example.org/v1'),
    journal: writer,
    concurrency: options.concurrency ?? 1,
    now: Date.now,
    send: behaviour,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    stop: options.stop ?? new AbortController().signal,
    signal: options.signal ?? new AbortController().signal,
    onResult: (result) => void results.push(result),
    onLevel: options.onLevel,
  });
  await writer.close();
  const index = new RecordIndex();
  await readJournal(writer.file, TARGET, index);
  const entries: Record<number, string> = {};
  names.forEach((name, i) => {
    const entry = index.lookup(identity(name), false);
    if (entry) entries[i + 1] = entry.state;
  });
  return { outcome, results, entries };
}

/** An answer of this status, as the HTTP core hands it to onAnswer. */
function answerOf(status: number): Answer {
  return { status, text: '', headers: {}, header: () => undefined };
}

let nextId = 1;
const creates: Behaviour = async (newPet, hooks) => {
  await hooks.beforeSend?.();
  hooks.onAnswer?.(answerOf(201));
  return { id: nextId++, ...newPet };
};

describe('runImport', () => {
  it('journals created, rejected (with the Error body) and reports every row', async () => {
    const { outcome, results, entries } = await run(['A', 'bad', 'C'], async (newPet, hooks) => {
      if (newPet.name !== 'bad') return creates(newPet, hooks);
      await hooks.beforeSend?.();
      hooks.onAnswer?.(answerOf(400));
      throw errorForStatus(400, 'no', { code: 'invalid_category', status: 400, body: { code: 'invalid_category', message: 'no', status: 400 } });
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
      await hooks.beforeSend?.();
      hooks.onAnswer?.(answerOf(429));
      throw new RateLimitError('rate limited', { code: 'rate_limited', status: 429, retryAt: Date.now() + 60_000 });
    });
    expect(calls).toBe(2);
    expect(entries).toEqual({ 1: 'created', 2: 'unsent' });
    expect(results).toHaveLength(1);
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
    const plans: Record<string, RowPlan> = {
      A: { action: 'skip', record: { ...identity('A'), state: 'created', pet: { id: 41, name: 'A', categoryId: 1 }, at }, changed: false },
      B: { action: 'unknown', record: { ...identity('B'), state: 'sent', at } },
    };
    const sent: string[] = [];
    const recording: Behaviour = (newPet, hooks) => {
      sent.push(newPet.name);
      return creates(newPet, hooks);
    };
    const first = await run(['A', 'B', 'C'], recording, { plans });
    expect(sent).toEqual(['C']);
    expect(first.results.map((r) => (r.ok ? ('skipped' in r ? 'skipped' : 'created') : r.error.code))).toEqual(['skipped', 'outcome_unknown', 'created']);
    expect(first.results[0]).toEqual({ row: 1, line: 1, ok: true, skipped: 'already_created', pet: { id: 41, name: 'A', categoryId: 1 }, at });
  });

  it('an aborted signal (a second Ctrl-C, SIGTERM) before sending: nothing is sent, and the outcome says interrupted', async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    const { outcome, entries } = await run(['A', 'B'], async (newPet, hooks) => {
      calls += 1;
      return creates(newPet, hooks);
    }, { signal: controller.signal });
    expect(calls).toBe(0);
    expect(entries).toEqual({});
    expect(outcome.interrupted).toBe(true);
  });

  it('the first Ctrl-C: a request waiting for the rate limit gives up unsent; one on the wire finishes', async () => {
    const stop = new AbortController();
    const { results, entries, outcome } = await run(
      ['wire', 'waiting'],
      async (newPet, hooks) => {
        if (newPet.name === 'wire') {
          await hooks.beforeSend?.();
          stop.abort();
          await new Promise((resolve) => setTimeout(resolve, 50));
          hooks.onAnswer?.(answerOf(201));
          return { id: 1, ...newPet };
        }
        await hooks.wait!(60_000, 'rate limit reached');
        return creates(newPet, hooks);
      },
      { stop: stop.signal, concurrency: 2 },
    );
    expect(results.map((r) => r.ok)).toEqual([true]);
    expect(entries).toEqual({ 1: 'created' });
    expect(outcome.interrupted).toBe(true);
  });

  it('keeps at most --concurrency rows in flight', async () => {
    let inFlight = 0;
    let most = 0;
    await run(Array.from({ length: 12 }, (_, i) => `P${i}`), async (newPet, hooks) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      return creates(newPet, hooks);
    }, { concurrency: 4 });
    expect(most).toBe(4);
  });

  describe('--concurrency auto', () => {
    /** An answer after `ms`, naming the window's requests left (or none); counts the requests on the wire at once. */
    function service(answer: () => { status: number; remaining?: number }, ms = 5) {
      const wire = { now: 0, most: 0 };
      const behaviour: Behaviour = async (newPet, hooks) => {
        for (;;) {
          await hooks.beforeSend?.();
          wire.now += 1;
          wire.most = Math.max(wire.most, wire.now);
          await new Promise((resolve) => setTimeout(resolve, ms));
          wire.now -= 1;
          const { status, remaining } = answer();
          const header = (name: string) => (name === 'x-ratelimit-remaining' && remaining !== undefined ? String(remaining) : undefined);
          hooks.onAnswer?.({ status, text: '', headers: {}, header });
          if (status !== 429) return { id: nextId++, ...newPet };
          // The HTTP core retries a 429 after its wait.
          await hooks.wait?.(1, 'retry');
        }
      };
      return { wire, behaviour };
    }
    const names = (count: number) => Array.from({ length: count }, (_, i) => `R${i}`);

    it('grows the requests in flight past 4 while the answers come at the same latency and name a window with room', async () => {
      const { wire, behaviour } = service(() => ({ status: 201, remaining: 50_000 }));
      const levels: LevelChange[] = [];
      const { outcome, entries } = await run(names(200), behaviour, { concurrency: 'auto', onLevel: (change) => levels.push(change) });
      expect(outcome.reported).toBe(200);
      expect(Object.values(entries).every((state) => state === 'created')).toBe(true);
      expect(levels[0]).toMatchObject({ from: 4, level: 5, cause: 'latency_held' });
      expect(wire.most).toBeGreaterThan(8);
    });

  });
});
