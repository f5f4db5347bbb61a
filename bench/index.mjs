// `npm run bench [-- --quick] [-- <name>...]`: runs every benchmark module
// bench/<name>.mjs that exports run({ quick }) (the protocol is in report.mjs),
// one after another so they never compete for the machine, and prints one table.
//
// Times never fail the run: a target that is not met shows "NO" in the table.
// The exit status is 1 only when a module crashed (threw, timed out, or
// returned no rows), so CI checks that the benchmarks work, not how fast.
import { readdirSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { printRows } from './report.mjs';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const NOT_MODULES = new Set(['index.mjs', 'report.mjs', 'compile.mjs']);

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args.filter((arg) => !arg.startsWith('--'));
// A module that hangs must not hang CI: it gets this long, then counts as crashed.
const limitMs = Number(process.env.BENCH_MODULE_TIMEOUT_MS) || (quick ? 180_000 : 1_800_000);

const names = readdirSync(benchDir)
  .filter((file) => file.endsWith('.mjs') && !NOT_MODULES.has(file))
  .map((file) => file.slice(0, -'.mjs'.length))
  .filter((name) => only.length === 0 || only.includes(name))
  .sort();
const unknown = only.filter((name) => !names.includes(name));
if (unknown.length > 0) {
  console.error(`error: no benchmark named ${unknown.join(', ')} in bench/`);
  process.exit(2);
}

const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');
console.log(
  `node ${process.version} ${process.platform}-${process.arch}, ${availableParallelism()} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), ` +
    `${(totalmem() / 2 ** 30).toFixed(1)} GiB; load average ${load()}${quick ? '; --quick' : ''}`,
);

const rows = [];
let crashed = false;
for (const name of names) {
  const started = performance.now();
  process.stderr.write(`bench/${name}.mjs ...`);
  try {
    const module = await import(pathToFileURL(`${benchDir}${name}.mjs`).href);
    if (typeof module.run !== 'function') {
      process.stderr.write(' skipped (no run export)\n');
      continue;
    }
    const result = await withTimeout(module.run({ quick }), limitMs);
    if (!Array.isArray(result) || result.length === 0) throw new Error('run() returned no rows');
    rows.push(...result);
    process.stderr.write(` ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    crashed = true;
    process.stderr.write(' crashed\n');
    const message = error instanceof Error ? error.message : String(error);
    rows.push({ figure: `bench/${name}.mjs (crashed)`, value: Number.NaN, unit: '', note: `crashed: ${message.split('\n')[0]}` });
  }
}

console.log('');
printRows(rows);
console.log(`\nload average after: ${load()}`);
// A module may leave a server or timer behind; the run is over.
process.exit(crashed ? 1 : 0);

function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
