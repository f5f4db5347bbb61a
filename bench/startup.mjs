// Start-up benchmark: wall time and peak memory of `petctl --version`, `--help` and `pets list`
// (against a running sandbox on loopback) next to bare `node -e 0`. Prints
// medians and ratios; it never fails on time. Targets from the brief:
// --version within 1.3x and pets list within 1.8x of `node -e 0`.
//
//   npm run bench              (20 runs each)
//   RUNS=50 npm run bench
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/petctl.js', import.meta.url));
const runs = Number(process.env.RUNS) || 20;
const configDir = mkdtempSync(path.join(tmpdir(), 'petctl-bench-'));
const env = { ...process.env, PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: 'sandbox-enterprise', NO_COLOR: '1' };

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const baseUrl = await new Promise((resolve, reject) => {
  let out = '';
  sandbox.stdout.on('data', (chunk) => {
    out += chunk;
    const line = out.split('\n')[0];
    if (out.includes('\n')) resolve(line.trim());
  });
  sandbox.on('exit', () => reject(new Error('sandbox exited early')));
});

function measure(args) {
  // Two warm-up runs fill the OS file cache and petctl's code cache.
  for (let i = 0; i < 2; i++) spawnSync(process.execPath, args, { env, stdio: 'ignore' });
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { env, stdio: 'ignore' });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
  }
  times.sort((a, b) => a - b);
  // One more run, with a preload that reports the peak resident set size on fd 3.
  const rssRun = spawnSync(process.execPath, args, {
    env: { ...env, NODE_OPTIONS: `--require ${fileURLToPath(new URL('./report-rss.cjs', import.meta.url))}` },
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
  });
  const maxRssMb = Number(String(rssRun.output[3]).trim()) / 1024;
  return { median: times[Math.floor(times.length / 2)], min: times[0], maxRssMb };
}

const cases = [
  ['node -e 0', ['-e', '0']],
  ['petctl --version', [bin, '--version']],
  ['petctl --help', [bin, '--help']],
  // What each TAB costs: the completion scripts run this (profile names read from the config).
  ["petctl __complete -- -p ''", [bin, '__complete', '--', '-p', '']],
  ['petctl pets list', [bin, '--base-url', baseUrl, 'pets', 'list']],
  ['petctl pets list -o json', [bin, '--base-url', baseUrl, 'pets', 'list', '-o', 'json']],
];

try {
  const results = cases.map(([name, args]) => [name, measure(args)]);
  const base = results[0][1].median;
  console.log(`node ${process.version}, ${runs} runs each, against ${baseUrl}`);
  console.log('command                      median ms   min ms   x node   max RSS MB');
  for (const [name, { median, min, maxRssMb }] of results) {
    console.log(
      `${name.padEnd(28)} ${median.toFixed(1).padStart(9)} ${min.toFixed(1).padStart(8)} ${(median / base).toFixed(2).padStart(8)} ${maxRssMb.toFixed(1).padStart(12)}`,
    );
  }
} finally {
  sandbox.kill('SIGINT');
  rmSync(configDir, { recursive: true, force: true });
}
