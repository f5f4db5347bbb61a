// The cost of the shared rate-limit state (Redis) per request, beside the local state file,
// measured in the same run (protocol: report.mjs).
//
// 1. The gate alone, in this process: one acquire + one record per request, as the HTTP core
//    calls them, against a redis-server on loopback (started here) and against the local file.
//    - "single": a single command (nothing tracked: both calls only read);
//    - "paced": bulk import (every acquire takes one from the shared budget: a write).
// 2. A whole `petctl pets list` (spawned, wall time) with PETCTL_STATE_URL and without:
//    connecting, loading the Redis client and measuring the clock offset included.
//
//   node bench/state-store.mjs [--quick]     (needs redis-server: apt-get install redis-server)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileModules } from './compile.mjs';
import { runStandalone } from './report.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = path.join(root, 'bin/petctl.js');
const BASE = 'https://api.example.org/v1';
const KEY = 'pk_bench_0123456789abcdef0123';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startRedis(dir) {
  if (spawnSync('redis-server', ['--version']).status !== 0) throw new Error('redis-server is not installed (apt-get install redis-server)');
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise((resolve, reject) => {
    let log = '';
    child.stdout.on('data', (chunk) => {
      log += chunk;
      if (log.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  const version = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).stdout.match(/v=(\S+)/)?.[1] ?? '?';
  return { url: `redis://127.0.0.1:${port}/0`, version, stop: () => child.kill('SIGTERM') };
}

/** The two gates, compiled from src/ the way the bundle compiles them. */
function loadGates(dir) {
  return compileModules(dir, 'gates', [
    "export { openFileStore } from './src/api/limits/file-store';",
    "export { openRedisStore } from './src/api/limits/redis-store';",
    "export { openGate } from './src/api/limits/gate';",
    "export { limitId } from './src/api/limits/store';",
    "export { describeStateUrl, stateStoreAddress } from './src/config/state-url';",
  ]);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Median ms per request (acquire + record) over `rounds` rounds of `count` requests. */
async function perRequest(gate, count, rounds) {
  const perRound = [];
  for (let round = 0; round < rounds + 1; round++) {
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const decision = await gate.acquire();
      if (!decision.go) throw new Error(`the gate said wait (${decision.reason})`);
      const now = Date.now();
      // The server's answer: a window far from used up, so the budget never runs out here.
      await gate.record({ status: 200, remaining: 1_000_000, reset: Math.ceil(now / 1000) + 3600, resetAt: now + 3_600_000 });
    }
    // The first round warms up (JIT, connection, file cache).
    if (round > 0) perRound.push((performance.now() - started) / count);
  }
  return median(perRound);
}

function wallMedian(args, env, runs) {
  for (let i = 0; i < 2; i++) spawnSync(process.execPath, args, { env, stdio: 'ignore' });
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    times.push(performance.now() - started);
    if (result.status !== 0 || /warning:/.test(result.stderr)) throw new Error(`${args.slice(1).join(' ')}: exit ${result.status} ${result.stderr}`);
  }
  return median(times);
}

async function startSandbox(env) {
  const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const baseUrl = await new Promise((resolve, reject) => {
    let out = '';
    sandbox.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0].trim());
    });
    sandbox.on('exit', () => reject(new Error('sandbox exited early')));
  });
  return { baseUrl, stop: () => sandbox.kill('SIGINT') };
}

export async function run({ quick }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'petctl-bench-state-'));
  const redis = await startRedis(dir);
  let sandbox;
  try {
    const { openFileStore, openRedisStore, openGate, limitId, describeStateUrl, stateStoreAddress } = await loadGates(dir);
    const count = quick ? 200 : 1000;
    const rounds = quick ? 3 : 7;
    const rows = [];
    {
      // Every request claims its slot (one write), and each answer lowers the budget (another).
      const now = () => Date.now();
      const local = openGate(openFileStore(path.join(dir, 'state.json'), BASE, KEY, now), { now });
      const mirror = openFileStore(path.join(dir, 'mirror.json'), BASE, KEY, now);
      const stateUrl = redis.url.replace(/\/0$/, '/1');
      const store = await openRedisStore({
        address: stateStoreAddress(stateUrl),
        where: describeStateUrl(stateUrl),
        id: await limitId(BASE, KEY),
        local: mirror,
        now,
        report: (notice) => {
          throw new Error(`state store: ${JSON.stringify(notice)}`);
        },
      });
      const shared = openGate(store, { now, mirror: () => store.mirror() });
      try {
        const localMs = await perRequest(local, count, rounds);
        const sharedMs = await perRequest(shared, count, rounds);
        rows.push({
          figure: 'gate acquire+record per request (each claim written): Redis on loopback',
          value: sharedMs,
          unit: 'ms',
          baseline: { name: 'local state file', value: localMs },
          ratio: sharedMs / localMs,
          note: `median of ${rounds} rounds of ${count} requests; redis-server ${redis.version}, one connection, WATCH/GET then MULTI/SET/EXEC`,
        });
      } finally {
        await store.close();
      }
    }

    const configDir = path.join(dir, 'config');
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: 'sandbox-enterprise', NO_COLOR: '1' };
    sandbox = await startSandbox(env);
    const runs = quick ? 5 : 20;
    const args = [bin, '--base-url', sandbox.baseUrl, 'pets', 'list'];
    const plainMs = wallMedian(args, env, runs);
    const sharedMs = wallMedian(args, { ...env, PETCTL_STATE_URL: redis.url.replace(/\/0$/, '/3') }, runs);
    rows.push({
      figure: 'petctl pets list (wall, median): with PETCTL_STATE_URL',
      value: sharedMs,
      unit: 'ms',
      baseline: { name: 'without', value: plainMs },
      ratio: sharedMs / plainMs,
      note: `${runs} runs each; includes loading the Redis client, connecting and reading Redis's clock`,
    });
    return rows;
  } finally {
    sandbox?.stop();
    redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runStandalone(run);
  process.exit(0);
}
