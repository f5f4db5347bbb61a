import { expect } from 'vitest';
import { BIN, NODE, assertNoSecrets, cleanEnv, newApiKey, tempDir } from './cli';
import { type CrowdMember, describeCrowd, runCrowd } from './crowd';
import { type LimitedServiceOptions, startLimitedService, windowEndIn } from './limited-service';
import { PET } from './scripted-server';

/** A crowd of `pets list` on one used-up Free key at the real minute, and what every crowd test asserts of it (test/e2e/crowd*.test.ts). */

const PROCESSES = 150;
const ARGS = ['pets', 'list', '-o', 'json'];
/** The window in use at the start ends this far after the crowd starts. */
const REOPEN_MS = 6_000;
/** The default --max-wait (60 s), the reopen, and time to start on a loaded machine. */
const KILL_AFTER_MS = 240_000;
export const CASE_TIMEOUT_MS = 8 * 60_000;
export const MAX_REFUSED = 5;
/** The warning of a process that stopped using the shared state store (src/api/limits/redis-store.ts). */
export const FELL_BACK = 'cannot use the shared rate-limit state';

export type Crowd = Awaited<ReturnType<typeof crowdOnOneKey>>;

export async function crowdOnOneKey(folders: number, stateUrl?: string, shape: { processes?: number; refusal?: LimitedServiceOptions['refusal'] } = {}) {
  const service = await startLimitedService({ windowEndsAt: windowEndIn(REOPEN_MS), refusal: shape.refusal });
  const configDirs = Array.from({ length: folders }, () => tempDir());
  const key = newApiKey();
  try {
    const run = await runCrowd({
      node: NODE,
      bin: BIN,
      env: cleanEnv(stateUrl === undefined ? {} : { PETCTL_STATE_URL: stateUrl }),
      key,
      configDirs,
      perFolder: (shape.processes ?? PROCESSES) / folders,
      args: ['--base-url', service.baseUrl, ...ARGS],
      killAfterMs: KILL_AFTER_MS,
    });
    const { requests, ok, refused, bannedAnswers, bans, okPerWindow } = service.counts;
    const fellBack = run.members.filter((member) => member.stderr.includes(FELL_BACK)).length;
    console.log(
      `${describeCrowd(run)}; the service saw ${requests} requests: ${ok} 2xx (per window: ${[...okPerWindow.values()].join(', ') || 'none'}), ` +
        `${refused} 429 (${bannedAnswers} key_banned), ${bans} bans; ${fellBack} processes left the shared state for the state file`,
    );
    return { service, run, key };
  } finally {
    await service.close();
  }
}

/** What a member printed as JSON on `stream` (on stderr -o json's error: the last line starting "{"), or which said what. */
function jsonOf(member: CrowdMember, stream: 'stdout' | 'stderr'): unknown {
  const lines = stream === 'stdout' ? [member.stdout] : member.stderr.split('\n').filter((line) => line.startsWith('{'));
  const text = lines.at(-1) ?? '{}';
  try {
    return JSON.parse(text);
  } catch {
    const which = `process ${member.index} (config folder ${member.folder}, exit ${member.signal ?? member.code})`;
    throw new Error(`${which} printed no JSON on ${stream}: ${JSON.stringify(text)}; its stderr:\n${member.stderr}`);
  }
}

/** Each process ended with its pets (0) or a stop (5) that sent nothing unless `stopsMaySend`; each 2xx one's answer. */
export function expectEveryoneDone({ service, run, key }: Crowd, stopsMaySend = false): void {
  for (const member of run.members) assertNoSecrets(member, [key]);
  const hung = run.members.filter((member) => member.signal !== null);
  expect(hung.map((member) => member.signal), 'processes killed after running 240 s').toEqual([]);
  const served = run.members.filter((member) => member.code === 0);
  for (const member of served) expect(jsonOf(member, 'stdout'), member.stderr).toEqual([PET]);
  for (const member of run.members.filter((member) => member.code !== 0)) {
    expect(member.code, member.stderr).toBe(5);
    expect(member.stdout).toBe('');
    const stop = jsonOf(member, 'stderr') as Record<string, string>;
    expect(stop.code, member.stderr).toBe('rate_limited');
    if (!stopsMaySend) expect(stop.message, member.stderr).toMatch(/nothing sent/);
  }
  expect(service.counts.ok).toBe(served.length);
}

export function expectNoBan({ service }: Crowd): void {
  expect(service.counts.bans, 'bans on the service').toBe(0);
  expect(service.counts.bannedAnswers, 'key_banned answers').toBe(0);
}
