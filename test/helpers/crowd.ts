import { spawnCli } from './spawn-cli';

/** petctl processes started at once on one key, as cron jobs on several machines. Plain Node: bench/crowd.mjs bundles it. */

export interface CrowdOptions {
  node: string;
  bin: string;
  env: NodeJS.ProcessEnv;
  key: string;
  /** One "machine" per config folder; `perFolder` processes each. */
  configDirs: string[];
  perFolder: number;
  args: string[];
  /** A process still running this long is killed (SIGKILL): a hang shows as a signal, never as a stuck test. */
  killAfterMs: number;
}

export interface CrowdMember {
  /** Its place in the order started (0 first). */
  index: number;
  folder: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  startedAt: number;
  endedAt: number;
}

export type CrowdRun = Awaited<ReturnType<typeof runCrowd>>;

async function runOne(options: CrowdOptions, folder: number, index: number): Promise<CrowdMember> {
  const startedAt = Date.now();
  const env = { ...options.env, PETCTL_CONFIG_DIR: options.configDirs[folder], PETCTL_API_KEY: options.key };
  const ended = await spawnCli(options.node, [options.bin, ...options.args], { env, timeoutMs: options.killAfterMs });
  return { index, folder, ...ended, startedAt, endedAt: Date.now() };
}

/** Starts every process at once (interleaving the folders) and resolves when all have ended. */
export async function runCrowd(options: CrowdOptions) {
  const startedAt = Date.now();
  const started: Array<Promise<CrowdMember>> = [];
  for (let index = 0; index < options.perFolder; index += 1) {
    for (let folder = 0; folder < options.configDirs.length; folder += 1) started.push(runOne(options, folder, started.length));
  }
  const members = await Promise.all(started);
  return { members, startedAt, endedAt: Math.max(...members.map((member) => member.endedAt)) };
}

/** One line for a test's log or a benchmark's note: exits by code, the longest run. */
export function describeCrowd(run: CrowdRun): string {
  const exits = new Map<string, number>();
  for (const member of run.members) {
    const exit = member.signal ?? String(member.code);
    exits.set(exit, (exits.get(exit) ?? 0) + 1);
  }
  const longest = Math.max(...run.members.map((member) => member.endedAt - member.startedAt));
  const last = Math.max(...run.members.map((member) => member.startedAt)) - run.startedAt;
  const byExit = [...exits].map(([exit, n]) => `exit ${exit}: ${n}`).join(', ');
  return `${run.members.length} processes (${byExit}); the last started ${(last / 1000).toFixed(1)} s after the first; longest run ${(longest / 1000).toFixed(1)} s; all done in ${((run.endedAt - run.startedAt) / 1000).toFixed(1)} s`;
}
