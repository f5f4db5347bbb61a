// A crowd on one Free key: `petctl pets list -o json` processes started at once against a service
// whose window (the real 60 s, 60 requests) is used up and reopens a few seconds later, and which
// bans the key after 10 refused requests in one window. Once with the state file (one config
// folder), once with the state in a redis-server on loopback (two config folders, half each).
// Prints what the service saw (requests, 2xx, 429s, bans) and the wall time against the ideal.
// test/e2e/crowd.test.ts asserts the bounds (no ban, at most 5 429s); this prints the figures.
//
// The ideal: the wait for the reopen, plus one window for each further window the 2xx needed,
//   (reopen - start) + (ceil(2xx / 60) - 1) x 60 s,
// as if starting 150 processes and answering them cost nothing. Wall time runs from the first
// process's start to the last one's exit.
//
//   node bench/crowd.mjs [--quick]     (150 processes per crowd; 40 with --quick, one window)
//                                      (needs redis-server: apt-get install redis-server)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileModules } from './compile.mjs';
import { runStandalone } from './report.mjs';

const bin = fileURLToPath(new URL('../bin/petctl.js', import.meta.url));
const KEY = 'pk_bench_crowd_0123456789abcdef';
const MAX_REFUSED = 5;

/** The scripted service, the crowd and the redis-server the e2e test uses, compiled from test/helpers/. */
function loadHelpers(dir) {
  return compileModules(dir, 'crowd-helpers', [
    "export { startLimitedService, windowEndIn } from './test/helpers/limited-service';",
    "export { runCrowd, describeCrowd } from './test/helpers/crowd';",
    "export { startRedisServer } from './test/helpers/redis-server';",
  ]);
}

async function crowd(helpers, { processes, folders, stateUrl, reopenMs, dir }) {
  const windowEndsAt = helpers.windowEndIn(reopenMs);
  const service = await helpers.startLimitedService({ windowEndsAt });
  const configDirs = Array.from({ length: folders }, (_, index) => mkdtempSync(path.join(dir, `config-${index}-`)));
  try {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'dumb', ...(stateUrl ? { PETCTL_STATE_URL: stateUrl } : {}) };
    const run = await helpers.runCrowd({
      node: process.execPath,
      bin,
      env,
      key: KEY,
      configDirs,
      perFolder: processes / folders,
      args: ['--base-url', service.baseUrl, 'pets', 'list', '-o', 'json'],
      killAfterMs: 240_000,
    });
    const { counts, limit, windowMs } = service;
    const idealMs = Math.max(0, windowEndsAt - run.startedAt) + Math.max(0, Math.ceil(counts.ok / limit) - 1) * windowMs;
    return { run, counts: { ...counts }, idealMs, summary: helpers.describeCrowd(run) };
  } finally {
    await service.close();
  }
}

function rowsFor(what, processes, result) {
  const { counts, run, idealMs } = result;
  const label = `${processes} pets list at once, ${what}`;
  const wallS = (run.endedAt - run.startedAt) / 1000;
  return [
    { figure: `${label}: requests the service saw`, value: counts.requests, unit: 'requests', note: result.summary },
    { figure: `${label}: 2xx`, value: counts.ok, unit: 'answers' },
    { figure: `${label}: 429s`, value: counts.refused, unit: 'answers', target: `<= ${MAX_REFUSED}`, met: counts.refused <= MAX_REFUSED, note: `${counts.bannedAnswers} of them key_banned` },
    { figure: `${label}: bans`, value: counts.bans, unit: 'bans', target: '0', met: counts.bans === 0 },
    {
      figure: `${label}: wall time`,
      value: wallS,
      unit: 's',
      baseline: { name: 'ideal', value: idealMs / 1000 },
      ratio: idealMs > 0 ? (wallS * 1000) / idealMs : Number.NaN,
      note: 'ideal: the wait for the reopen + 60 s for each further window the 2xx needed; wall: first start to last exit',
    },
  ];
}

export async function run({ quick }) {
  const processes = quick ? 40 : 150;
  const reopenMs = quick ? 3_000 : 6_000;
  const dir = mkdtempSync(path.join(tmpdir(), 'petctl-bench-crowd-'));
  let redis;
  try {
    const helpers = await loadHelpers(dir);
    const rows = rowsFor('state file', processes, await crowd(helpers, { processes, folders: 1, reopenMs, dir }));
    redis = await helpers.startRedisServer();
    rows.push(...rowsFor('Redis, 2 config folders', processes, await crowd(helpers, { processes, folders: 2, stateUrl: redis.url, reopenMs, dir })));
    return rows;
  } finally {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runStandalone(run);
  process.exit(0);
}
