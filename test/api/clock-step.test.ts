import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HttpClient } from '../../src/api/client';
import { openFileStore } from '../../src/api/limits/file-store';
import { openGate } from '../../src/api/limits/gate';
import { steadyClock } from '../../src/api/clock';
import { BASE_URL, FakeTime, fakeClient, fakeService } from '../helpers/fake-core';
import { limitHeaders } from '../helpers/scripted-server';
import { tempDir } from '../helpers/temp-dir';

/**
 * The HTTP core as app/session.ts builds it, over the real state file: the fake time is the monotonic
 * clock, and the wall clock is that plus an offset the test moves back an hour 4 s into a 30-s wait.
 */

const SECOND = 1000;
const HOUR = 60 * 60 * SECOND;
const KEY = 'pk_test_clock_step';

function setup() {
  const time = new FakeTime();
  let offset = 0;
  const wall = () => time.now + offset;
  let created = 0;
  // The server's clock is right: its Reset and Retry-After are on the true time.
  const { agent, requests } = fakeService(time, (request, index) => {
    if (index === 0) return { status: 429, headers: { 'retry-after': '30', ...limitHeaders(request.at, 0, 30) } };
    created += 1;
    return { status: 201, headers: limitHeaders(request.at, 50, 60), body: { id: created, ...JSON.parse(request.body) } };
  });
  const stateFile = path.join(tempDir(), 'state.json');
  /** The HTTP core's wait, which sets the machine's clock back an hour 4 s into the first one. */
  const waits: Array<{ ms: number; why: string }> = [];
  const wait = async (ms: number, why: string) => {
    if (waits.push({ ms, why }) === 1) void time.sleep(4 * SECOND).then(() => (offset = -HOUR));
    await time.sleep(ms);
  };
  return { time, agent, requests, wall, stateFile, waits, wait };
}

async function importRows(http: HttpClient, rows: number): Promise<number> {
  let created = 0;
  for (let row = 1; row <= rows; row++) {
    await http.send({ method: 'POST', path: '/pets', body: { name: `row-${row}`, categoryId: 1 }, hooks: { paced: true } });
    created += 1;
  }
  return created;
}

describe('a step of the machine clock during a wait', () => {
  it('the machine clock set back an hour 4 s into a 30-s Retry-After: the wait ends on time, the import finishes, and no day quota is stored', async () => {
    const { time, agent, requests, wall, stateFile, waits, wait } = setup();
    const now = steadyClock(wall, () => time.now);
    const gate = openGate(openFileStore(stateFile, BASE_URL, KEY, now), { now });
    const { http } = fakeClient(time, agent, gate, { now, monotonic: () => time.now, wait });
    const t0 = time.now;

    const created = await time.run(importRows(http, 3));

    expect(created).toBe(3);
    expect(wall() - time.now).toBe(-HOUR);
    // The retry went when Retry-After said, on the true time, and not an hour later.
    expect(requests.map((request) => request.at - t0)).toEqual([0, 30 * SECOND, 30 * SECOND, 30 * SECOND]);
    expect(waits.map((wait) => wait.ms)).toEqual([30 * SECOND]);
    expect(waits.every((wait) => !/day|quota|1h/.test(wait.why))).toBe(true);

    const state = fs.readFileSync(stateFile, 'utf8');
    expect(state).not.toContain('quota_exhausted');
    // Every time stored is within the minute the service spoke of, on the clock the run started with.
    const times = [...state.matchAll(/"(\w+)":\s*(\d{13})/g)].map(([, name, value]) => ({ name, at: Number(value) }));
    expect(times.length).toBeGreaterThan(0);
    for (const { name, at } of times) expect({ name, ahead: at - t0 <= 2 * 60 * SECOND }).toEqual({ name, ahead: true });
  });
});
