import { MockAgent } from 'undici';
import { HttpClient, type HttpClientOptions } from '../../src/api/client';
import { waitWords } from '../../src/output/waits';
import type { LimitEntry } from '../../src/api/limits/entry';
import { type RateLimitGate, openGate } from '../../src/api/limits/gate';
import type { LimitStore } from '../../src/api/limits/store';

/** The real HTTP core against a fake service on undici's MockAgent, on a fake clock: days of waiting run in milliseconds. */

export const ORIGIN = 'https://api.test';
export const BASE_URL = `${ORIGIN}/v1`;
/** A weekday noon, a quarter second past the second (Reset and Retry-After are whole seconds). */
export const START = Date.UTC(2026, 10, 25, 12, 0, 0) + 250;

/** A clock that moves only when someone waits: the earliest timer fires once everything runnable has run. */
export class FakeTime {
  private timers: Array<{ at: number; seq: number; resolve: () => void }> = [];
  private seq = 0;

  constructor(public now = START) {}

  sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      this.timers.push({ at: this.now + Math.max(0, ms), seq: (this.seq += 1), resolve });
    });

  /** Runs `task` to its end, moving the clock from timer to timer whenever nothing else can run. */
  async run<T>(task: Promise<T>): Promise<T> {
    let settled = false;
    const watched = task.finally(() => {
      settled = true;
    });
    watched.catch(() => {});
    while (!settled) {
      // Let every runnable continuation, and MockAgent's answers, run first.
      for (let i = 0; i < 20 && !settled; i++) await new Promise((resolve) => setImmediate(resolve));
      if (settled || this.timers.length === 0) continue;
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0]!.at;
      this.now = Math.max(this.now, next);
      const due = this.timers.filter((timer) => timer.at <= this.now);
      this.timers = this.timers.filter((timer) => timer.at > this.now);
      for (const timer of due) timer.resolve();
    }
    return watched;
  }
}

/** The gate on one in-memory record, one process's view that no other process shares: the state file without the file. */
export function memoryGate(now: () => number, probeLeaseMs = 1000): RateLimitGate & { entry(): LimitEntry | undefined } {
  let entry: LimitEntry | undefined;
  const store: LimitStore = {
    async read() {
      return entry;
    },
    async update(change) {
      const { entry: next, result } = change(entry);
      if (next) entry = next;
      return result;
    },
  };
  return { ...openGate(store, { now, probeLeaseMs }), entry: () => entry };
}

/** `at`: the fake clock when the request reached the service. */
interface FakeRequest {
  method: string;
  path: string;
  body: string;
  at: number;
}

export interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A service answering every request on ORIGIN with `respond`; it records what it received. */
export function fakeService(time: FakeTime, respond: (request: FakeRequest, index: number) => FakeAnswer): { agent: MockAgent; requests: FakeRequest[] } {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const requests: FakeRequest[] = [];
  agent
    .get(ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .reply((options) => {
      const request = { method: options.method, path: options.path, body: typeof options.body === 'string' ? options.body : '', at: time.now };
      requests.push(request);
      const answer = respond(request, requests.length - 1);
      const body = answer.body === undefined ? (answer.status < 300 ? [] : { code: 'rate_limited', message: 'Too many requests', status: answer.status }) : answer.body;
      return { statusCode: answer.status, data: JSON.stringify(body), responseOptions: { headers: { 'content-type': 'application/json', ...answer.headers } } };
    })
    .persist();
  return { agent, requests };
}

/** One petctl process's HTTP core on the fake clock; `waits` lists every wait it made. */
export function fakeClient(time: FakeTime, agent: MockAgent, gate: RateLimitGate, overrides: Partial<HttpClientOptions> = {}) {
  const waits: Array<{ ms: number; why: string; at: number }> = [];
  const http = new HttpClient({
    baseUrl: BASE_URL,
    apiKey: 'pk_test_fake_core',
    userAgent: 'petctl/test',
    timeoutMs: 30_000,
    retries: 4,
    maxWaitMs: 60_000,
    dispatcher: agent,
    gate,
    now: () => time.now,
    monotonic: () => time.now,
    random: () => 0.5,
    wait: async (ms, why) => {
      waits.push({ ms, why, at: time.now });
      await time.sleep(ms);
    },
    signal: new AbortController().signal,
    words: waitWords,
    ...overrides,
  });
  return { http, waits };
}
