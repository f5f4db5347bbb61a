// What loading a module costs a fresh process: the figures behind the code's choices of what to
// load late or not at all (docs/performance.md, "What a module costs to load"). Each case runs in
// its own `node` process, the cases interleaved round-robin; a library is bundled by esbuild into
// one CommonJS file first, as the build bundles it (without the build's stand-ins and code cache).
// The figure is the median time from before the `require` to after the first call. One more row
// compares JSON.parse with the int64-exact parser (src/schemas/json.ts) on a pet's line.
//
//   node bench/module-costs.mjs [--quick]      (or npm run bench -- module-costs)
//   RUNS=40 node bench/module-costs.mjs        (default 15 runs per case, 3 with --quick)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { compileModules } from './compile.mjs';
import { runStandalone } from './report.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Each case: what is loaded (a library bundled, or a built-in), and the first call made of it. */
const CASES = [
  { figure: 'node:crypto', where: 'src/digest.ts, src/file-safety.ts', load: "require('node:crypto')", call: "m.createHash('sha256').update('x').digest('hex')" },
  { figure: 'the performance global (perf_hooks)', where: 'src/api/clock.ts', load: 'globalThis.performance', call: 'm.now()' },
  { figure: 'node:net', where: 'src/config/url-check.ts', load: "require('node:net')", call: "m.isIP('127.0.0.1')" },
  { figure: 'node:child_process and node:http2', where: 'scripts/build.mjs (lazyBuiltins)', load: "[require('node:child_process'), require('node:http2')]", call: 'm.length' },
  { figure: 'node:assert', where: 'scripts/build.mjs (lazyAssertAndNoSupportsColor)', load: "require('node:assert')", call: 'm(true)' },
  { figure: 'node:tty', where: 'scripts/build.mjs (lazyAssertAndNoSupportsColor)', load: "require('node:tty')", call: 'm.isatty(1)' },
  { figure: 'node:http', where: 'scripts/build.mjs (undici reads it where it uses it)', load: "require('node:http')", call: 'm.maxHeaderSize' },
  { figure: 'proper-lockfile', where: 'src/locked-file.ts', bundle: "module.exports = require('proper-lockfile');", call: 'm.check' },
  { figure: 'cli-table3 and chalk', where: 'src/output/records.ts', bundle: "export { default as Table } from 'cli-table3'; export { Chalk } from 'chalk';", call: "new m.Table({}).toString() + new m.Chalk({ level: 1 }).bold('x')" },
  { figure: 'conf (with ajv, ajv-formats and semver)', where: 'src/config/profiles.ts', bundle: "export { default as Conf } from 'conf';", call: 'm.Conf' },
  { figure: 'ioredis', where: 'src/api/limits/redis-store.ts', bundle: "export { Redis } from 'ioredis';", call: 'm.Redis' },
  { figure: '@inquirer/input and @inquirer/select', where: 'src/input/prompts.ts', bundle: "export { default as input } from '@inquirer/input'; export { default as select } from '@inquirer/select';", call: 'm.input' },
  { figure: 'jmespath', where: 'src/output/query.ts', bundle: "module.exports = require('jmespath');", call: "m.compile('a')" },
  { figure: 'http-link-header', where: 'src/api/endpoints/pages.ts', bundle: "module.exports = require('http-link-header');", call: "m.parse('</a>; rel=\"next\"')" },
  { figure: '@noble/hashes (sha256)', where: 'src/digest.ts', bundle: "export { sha256 } from '@noble/hashes/sha2.js';", call: "m.sha256(new Uint8Array(1))" },
  { figure: "undici's proxy agent, pool and CONNECT", where: 'src/api/transport.ts', bundle: "export { default as EnvHttpProxyAgent } from 'undici/lib/dispatcher/env-http-proxy-agent.js'; export { default as Pool } from 'undici/lib/dispatcher/pool.js'; export { default as connect } from 'undici/lib/api/api-connect.js';", call: 'm.EnvHttpProxyAgent' },
  { figure: 'string-width, an ASCII text', where: 'src/output/table.ts, src/output/guide.ts', bundle: "export { default } from 'string-width';", call: "m.default('Rex')" },
  { figure: 'string-width, a wide text', where: 'src/output/table.ts, src/output/guide.ts', bundle: "export { default } from 'string-width';", call: "m.default('ポチ 🐶')" },
];

export async function run({ quick = false } = {}) {
  const runs = Number(process.env.RUNS) || (quick ? 3 : 15);
  const dir = mkdtempSync(path.join(tmpdir(), 'petctl-module-costs-'));
  try {
    const scripts = [];
    for (const [index, entry] of CASES.entries()) {
      let load = entry.load;
      if (entry.bundle) {
        const outfile = path.join(dir, `case-${index}.cjs`);
        await build({ stdin: { contents: entry.bundle, resolveDir: root, loader: 'js' }, bundle: true, platform: 'node', format: 'cjs', minify: true, outfile, logLevel: 'warning' });
        load = `require(${JSON.stringify(outfile)})`;
      }
      scripts.push(`const t = process.hrtime.bigint(); const m = ${load}; ${entry.call}; process.stdout.write(String(Number(process.hrtime.bigint() - t) / 1e6));`);
    }
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_OPTIONS' && name !== 'NODE_EXTRA_CA_CERTS'));
    const times = CASES.map(() => []);
    for (let round = 0; round < runs; round++) {
      for (const [index, script] of scripts.entries()) {
        const result = spawnSync(process.execPath, ['-e', script], { env, encoding: 'utf8' });
        const ms = Number(result.stdout);
        if (result.status !== 0 || !Number.isFinite(ms)) throw new Error(`${CASES[index].figure}: ${result.stderr || result.stdout}`);
        times[index].push(ms);
      }
    }
    const rows = CASES.map((entry, index) => {
      const sorted = times[index].sort((a, b) => a - b);
      return {
        figure: `load and first call: ${entry.figure} (median)`,
        value: sorted[Math.floor(sorted.length / 2)],
        unit: 'ms',
        note: `${runs} runs, ${sorted[0].toFixed(1)}-${sorted.at(-1).toFixed(1)} ms; the choice it explains: ${entry.where}`,
      };
    });
    return [...rows, await parseRow(dir, quick)];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How many times slower the int64-exact parser reads a pet's line than JSON.parse (src/sandbox/file-store.ts, src/locked-file.ts). */
async function parseRow(dir, quick) {
  const { parseJson } = await compileModules(dir, 'json', ["export { parseJson } from './src/schemas/json.ts';"]);
  const line = '{"id":123456,"name":"Rex the third","categoryId":12,"status":"available","createdAt":"2026-11-28T21:00:00.000Z"}';
  const count = quick ? 20_000 : 200_000;
  const time = (parse) => {
    const started = performance.now();
    for (let index = 0; index < count; index++) parse(line);
    return performance.now() - started;
  };
  time(JSON.parse);
  time(parseJson);
  const [native, exact] = [time(JSON.parse), time(parseJson)];
  return { figure: "the int64-exact parser against JSON.parse, a pet's line", value: exact / native, unit: 'x', note: `${count} lines: ${native.toFixed(0)} ms and ${exact.toFixed(0)} ms, in this process after a warm-up` };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runStandalone(run);
