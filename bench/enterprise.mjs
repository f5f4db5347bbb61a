// Enterprise scale (issue 30): an Enterprise key of 60,000 requests a minute, and how close petctl
// comes to that rate, on default flags. Each target prints beside its goal, with its rows or pages,
// the time, peak RSS (bench/report-rss.cjs) and the most requests in flight, counted by the server
// (requests arrived and not yet answered):
//
//  1. `pets add --file` of 20,000 rows against the sandbox in memory (started in this process, the
//     code of `petctl sandbox`): the achieved rate over the plan's (goal >= 0.95), and peak RSS
//     (goal < 80 MB).
//  2. 6,000 rows against a service that answers each request 50 ms late (test/helpers/limited-service.ts,
//     the one test/e2e/enterprise-scale.test.ts runs): goal >= 0.9 of the plan's rate.
//  3. `pets list --all` and `api --paginate` over 50,000 animals, 100 a page, from that service. Each
//     page's link comes with the page before, so the floor is one round trip a page (500 x 50 ms):
//     goal >= 0.95 of it, no 429 or ban, every animal once and in ascending id order (checked in
//     petctl's output) and every page read once in order (checked on the server). For scale, the
//     same walk by a bare undici client (bench/bare-walk.cjs): what the machine itself leaves of the floor.
//
// The plan's rate is 1,000 rows a second (60,000 a minute): the share is rows / time / 1,000, the
// time being petctl's whole run, from its start to its exit.
//
//   node bench/enterprise.mjs            the sizes above (about 3 minutes at today's rates)
//   node bench/enterprise.mjs --quick    2,000 rows, 600 rows, 5,000 animals (seconds; the goals are the full run's)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { compileModules } from './compile.mjs';
import { runStandalone } from './report.mjs';

const bin = fileURLToPath(new URL('../bin/petctl.js', import.meta.url));
const rssReporter = fileURLToPath(new URL('./report-rss.cjs', import.meta.url));
const PER_MINUTE = 60_000;
const LATENCY_MS = 50;
const PAGE = 100;
const progress = (text) => process.stderr.write(`bench/enterprise: ${text}\n`);

export async function run({ quick = false } = {}) {
  const sizes = quick ? { sandbox: 2000, far: 600, listed: 5000 } : { sandbox: 20_000, far: 6000, listed: 50_000 };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-bench-enterprise-'));
  const { startLimitedService, startSandbox } = await compileModules(work, 'enterprise-helpers', [
    "export { startLimitedService } from './test/helpers/limited-service';",
    "export { startSandbox } from './src/sandbox/server';",
  ]);
  const goal = (text) => (quick ? `${text} (full run only)` : text);
  const judged = (met) => (quick ? undefined : met);
  const rows = [];
  try {
    // 1. The sandbox in memory.
    progress(`${sizes.sandbox} rows into the sandbox in memory`);
    const sandbox = await startSandbox({ port: 0, enterprisePerMinute: PER_MINUTE, enterprisePerDay: 100_000_000 });
    const served = countInFlight(sandbox.server);
    let local;
    try {
      local = await petctl(work, sandbox.baseUrl, 'sandbox-enterprise', ['pets', 'add', '--file', rowsFile(work, sizes.sandbox), '-q']);
    } finally {
      await sandbox.close();
    }
    const localShare = sizes.sandbox / local.seconds / (PER_MINUTE / 60_000) / 1000;
    rows.push({
      figure: `import ${sizes.sandbox} rows, sandbox in memory, default flags: share of the plan's rate`,
      value: localShare,
      unit: 'x',
      target: goal('>= 0.95'),
      met: judged(localShare >= 0.95 && local.code === 0 && served.created === sizes.sandbox),
      note: `${sizes.sandbox} rows in ${local.seconds.toFixed(1)} s (at the plan's 1,000 a second: ${(sizes.sandbox / 1000).toFixed(1)} s); exit ${local.code}; the sandbox answered ${served.created} 201s, ${served.refused} 429s; peak RSS ${local.rssMb.toFixed(1)} MB; most in flight ${served.maxInFlight}`,
    });
    rows.push({
      figure: `import ${sizes.sandbox} rows, sandbox in memory: peak RSS`,
      value: local.rssMb,
      unit: 'MB',
      target: goal('< 80 MB'),
      met: judged(local.rssMb < 80),
    });

    // 2. A service 50 ms away.
    progress(`${sizes.far} rows into a service ${LATENCY_MS} ms away`);
    const far = await startLimitedService({ latencyMs: LATENCY_MS, limit: PER_MINUTE, listed: 0 });
    let farRun;
    try {
      farRun = await petctl(work, far.baseUrl, 'pk_bench_enterprise', ['pets', 'add', '--file', rowsFile(work, sizes.far), '-q']);
    } finally {
      await far.close();
    }
    const farShare = sizes.far / farRun.seconds / 1000;
    const twice = [...far.counts.created.values()].filter((count) => count > 1).length;
    rows.push({
      figure: `import ${sizes.far} rows, service ${LATENCY_MS} ms away, default flags: share of the plan's rate`,
      value: farShare,
      unit: 'x',
      target: goal('>= 0.9'),
      met: judged(farShare >= 0.9 && farRun.code === 0 && far.counts.created.size === sizes.far && twice === 0),
      note: `${sizes.far} rows in ${farRun.seconds.toFixed(1)} s (at the plan's 1,000 a second: ${(sizes.far / 1000).toFixed(1)} s); exit ${farRun.code}; the service created ${far.counts.created.size} names, ${twice} of them more than once, answered ${far.counts.refused} 429s and ${far.counts.bans} bans; peak RSS ${farRun.rssMb.toFixed(1)} MB; most in flight ${far.counts.maxInFlight}`,
    });

    // 3. The listings.
    for (const [name, args] of [
      ['pets list --all', ['pets', 'list', '--all', '--limit', String(PAGE), '-o', 'json']],
      ['api --paginate', ['api', `/pets?limit=${PAGE}`, '--paginate', '-o', 'json']],
    ]) {
      progress(`${name} over ${sizes.listed} animals, ${LATENCY_MS} ms away`);
      const service = await startLimitedService({ latencyMs: LATENCY_MS, limit: PER_MINUTE, listed: sizes.listed });
      let listing;
      try {
        listing = await petctl(work, service.baseUrl, 'pk_bench_enterprise', args);
      } finally {
        await service.close();
      }
      const pages = Math.ceil(sizes.listed / PAGE);
      const floorSeconds = (pages * LATENCY_MS) / 1000;
      const share = floorSeconds / listing.seconds;
      const printed = orderOf(listing.stdout, sizes.listed);
      const pagesInOrder = service.counts.pages.length === pages && service.counts.pages.every((after, page) => after === (page === 0 ? '' : String(page * PAGE)));
      const clean = listing.code === 0 && printed.ok && pagesInOrder && service.counts.refused === 0 && service.counts.bans === 0;
      rows.push({
        figure: `${name} over ${sizes.listed} animals, ${PAGE} a page, ${LATENCY_MS} ms away: share of the floor`,
        value: share,
        unit: 'x',
        target: goal('>= 0.95'),
        met: judged(share >= 0.95 && clean),
        note: `${pages} pages in ${listing.seconds.toFixed(1)} s (floor: one round trip a page, ${floorSeconds.toFixed(1)} s); exit ${listing.code}; ${printed.text}; the server read ${service.counts.pages.length} pages${pagesInOrder ? ', each once, in order' : ', NOT each once in order'}; ${service.counts.refused} 429s, ${service.counts.bans} bans; peak RSS ${listing.rssMb.toFixed(1)} MB; most in flight ${service.counts.maxInFlight}`,
      });
    }
    // For scale: the same walk with no gate, checks, output or process start-up of petctl's.
    progress(`a bare undici client over the same ${sizes.listed} animals`);
    const service = await startLimitedService({ latencyMs: LATENCY_MS, limit: PER_MINUTE, listed: sizes.listed });
    let bare;
    try {
      bare = await bareWalk(`${service.baseUrl}/pets?limit=${PAGE}`);
    } finally {
      await service.close();
    }
    const pages = Math.ceil(sizes.listed / PAGE);
    rows.push({
      figure: `for scale: a bare undici client following the same links: share of the floor`,
      value: (pages * LATENCY_MS) / 1000 / bare.seconds,
      unit: 'x',
      note: `${pages} pages in ${bare.seconds.toFixed(1)} s, ${bare.items} items read (bench/bare-walk.cjs: undici's request() in a loop, nothing checked, stored or printed)`,
    });
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return rows;
}

/** bench/bare-walk.cjs from `url`: its wall time and the items it read. */
function bareWalk(url) {
  const started = performance.now();
  const child = spawn(process.execPath, [fileURLToPath(new URL('./bare-walk.cjs', import.meta.url)), url], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  return new Promise((resolve) => child.on('close', () => resolve({ seconds: (performance.now() - started) / 1000, items: Number(stdout.trim()) })));
}

/** `count` rows of NDJSON, each name once. */
function rowsFile(work, count) {
  const file = path.join(work, `rows-${count}.ndjson`);
  fs.writeFileSync(file, Array.from({ length: count }, (_, i) => `{"name":"Bench ${i + 1}","categoryId":${(i % 4) + 1}}\n`).join(''));
  return file;
}

/** Counts on the server's side: requests arrived and not yet answered (the most at once), 201s and 429s. */
function countInFlight(server) {
  const counts = { maxInFlight: 0, created: 0, refused: 0 };
  let inFlight = 0;
  const open = (request, response) => {
    inFlight += 1;
    counts.maxInFlight = Math.max(counts.maxInFlight, inFlight);
    response.once('close', () => {
      inFlight -= 1;
      if (response.statusCode === 201) counts.created += 1;
      if (response.statusCode === 429) counts.refused += 1;
    });
  };
  server.prependListener('request', open);
  server.prependListener('checkContinue', open);
  return counts;
}

/** Whether petctl's JSON array holds ids 1..listed, each once, in ascending order. */
function orderOf(stdout, listed) {
  let ids;
  try {
    ids = JSON.parse(stdout).map((pet) => pet.id);
  } catch (error) {
    return { ok: false, text: `output not a JSON array (${error.message})` };
  }
  const ascending = ids.every((id, index) => index === 0 || id > ids[index - 1]);
  const unique = new Set(ids).size;
  const ok = ascending && unique === listed && ids.length === listed;
  return { ok, text: `${ids.length} animals printed, ${unique} distinct, ${ascending ? 'in ascending order' : 'NOT in order'}` };
}

/** petctl with a fresh config folder, its wall time, exit code, stdout and peak RSS. */
function petctl(work, baseUrl, key, args) {
  const configDir = fs.mkdtempSync(path.join(work, 'config-'));
  const started = performance.now();
  const child = spawn(process.execPath, [bin, '--base-url', baseUrl, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key, NODE_OPTIONS: `--require ${rssReporter}` },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let usage = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  child.stdio[3].setEncoding('utf8').on('data', (chunk) => (usage += chunk));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) progress(`petctl ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').at(-1)}`);
      // report-rss.cjs writes "<peak RSS KiB> <CPU µs>".
      resolve({ code, seconds, stdout, rssMb: (Number(usage.trim().split(/\s+/)[0]) * 1024) / 2 ** 20 });
    }),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await runStandalone(run);
