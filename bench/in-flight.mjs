// The level in flight of `petctl pets add --file` (--concurrency auto, src/bulk/in-flight.ts) beside
// fixed levels, on a plan of 60,000 requests a minute:
//   - a service 50 ms away: a node:http server in this process that answers every POST 50 ms late,
//     naming its window (X-RateLimit-Limit/Remaining/Reset, one minute from its first request),
//     and counts the requests in flight and each row created;
//   - the in-memory sandbox (`petctl sandbox --enterprise-quota 60000/100000000`, no --data).
// Each row: rows, time from the process's start to its exit, the share of the plan's rate
// (rows / time over 1,000 a second), peak RSS (bench/report-rss.cjs), and the most in flight (the
// server's count; for the sandbox, the highest `* in flight` line of a second run with -v, untimed,
// as -v's lines for every request slow the import down).
//
//   node bench/in-flight.mjs            6,000 rows at 50 ms, 5,000 rows in the sandbox
//   node bench/in-flight.mjs --quick    1,500 and 1,500
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runStandalone } from './report.mjs';

const bin = fileURLToPath(new URL('../bin/petctl.js', import.meta.url));
const rssReporter = fileURLToPath(new URL('./report-rss.cjs', import.meta.url));
const PER_MINUTE = 60_000;
const LATENCY_MS = 50;

/** The scripted service 50 ms away. */
async function lateService() {
  let windowEnd;
  let used = 0;
  let id = 1;
  const state = { inFlight: 0, most: 0, created: new Map() };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      state.inFlight += 1;
      state.most = Math.max(state.most, state.inFlight);
      const now = Date.now();
      if (windowEnd === undefined || now >= windowEnd) {
        windowEnd = now + 60_000;
        used = 0;
      }
      used += 1;
      setTimeout(() => {
        state.inFlight -= 1;
        const name = JSON.parse(body).name;
        state.created.set(name, (state.created.get(name) ?? 0) + 1);
        res.writeHead(201, {
          'content-type': 'application/json',
          date: new Date().toUTCString(),
          'x-ratelimit-limit': String(PER_MINUTE),
          'x-ratelimit-remaining': String(Math.max(0, PER_MINUTE - used)),
          'x-ratelimit-reset': String(Math.ceil(windowEnd / 1000)),
        });
        res.end(`{"id":${id++},${body.slice(1)}`);
      }, LATENCY_MS);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${server.address().port}/v1`, state, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function sandbox(dir) {
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--enterprise-quota', `${PER_MINUTE}/100000000`], { env: { ...process.env, PETCTL_CONFIG_DIR: dir }, stdio: ['ignore', 'pipe', 'ignore'] });
  const baseUrl = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`petctl sandbox exited with ${code}`)));
  });
  return { baseUrl, close: () => child.kill() };
}

/** One import; resolves with its time, exit code, peak RSS (MB) and the highest level petctl -v printed. */
function importRows(baseUrl, file, dir, flags) {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, '--base-url', baseUrl, 'pets', 'add', '--file', file, '-o', 'ndjson', ...flags], {
    env: { ...process.env, PETCTL_CONFIG_DIR: fs.mkdtempSync(path.join(dir, 'client-')), PETCTL_API_KEY: 'sandbox-enterprise', NODE_OPTIONS: `--require ${rssReporter}` },
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let level = 0;
  let tail = '';
  createInterface({ input: child.stderr }).on('line', (line) => {
    const seen = /^\* in flight: (\d+)/.exec(line);
    if (seen) level = Math.max(level, Number(seen[1]));
    else if (!line.startsWith('row ') && !/^[<>*]/.test(line)) tail = line;
  });
  let usage = '';
  child.stdio[3].setEncoding('utf8').on('data', (chunk) => (usage += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ ms: performance.now() - started, code, rssMb: Number(usage.split(' ')[0]) / 1024, level, tail })));
}

export async function run({ quick }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-bench-in-flight-'));
  const rows = [];
  const cases = [['default flags (auto)', []], ['--concurrency 16', ['--concurrency', '16']], ['--concurrency 4', ['--concurrency', '4']]];
  try {
    for (const [where, count] of [['a service 50 ms away', quick ? 1500 : 6000], ['the in-memory sandbox', quick ? 1500 : 5000]]) {
      for (const [what, flags] of cases) {
        const service = where.startsWith('a service') ? await lateService() : await sandbox(fs.mkdtempSync(path.join(dir, 'sandbox-')));
        try {
          const file = path.join(dir, `rows-${rows.length}.ndjson`);
          fs.writeFileSync(file, Array.from({ length: count }, (_, i) => `{"name":"Bench ${rows.length}-${i + 1}","categoryId":1}\n`).join(''));
          const result = await importRows(service.baseUrl, file, dir, flags);
          if (!service.state && flags.length === 0) {
            // The sandbox cannot count what is in flight: a second run with -v says what level it reached.
            fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replaceAll('"Bench ', '"Bench again '));
            result.level = (await importRows(service.baseUrl, file, dir, ['-v'])).level;
          }
          const share = count / (result.ms / 1000) / (PER_MINUTE / 60);
          const most = service.state ? service.state.most : flags.length === 0 ? result.level : Number(flags[1]);
          const once = service.state ? [...service.state.created.values()].every((n) => n === 1) && service.state.created.size === count : undefined;
          rows.push({
            figure: `${where}, ${count} rows, ${what}`,
            value: share,
            unit: 'of the plan',
            target: where.startsWith('a service') ? '>= 0.9' : '>= 0.95',
            met: share >= (where.startsWith('a service') ? 0.9 : 0.95),
            note: `${(result.ms / 1000).toFixed(1)} s, exit ${result.code}, peak RSS ${result.rssMb.toFixed(1)} MB, most in flight ${most}${once === undefined ? '' : once ? ', every row created once' : ', ROWS NOT CREATED ONCE'}${result.code === 0 ? '' : `: ${result.tail}`}`,
          });
        } finally {
          await service.close();
        }
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runStandalone(run);
