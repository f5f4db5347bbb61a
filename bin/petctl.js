#!/usr/bin/env node
// The shebang shim. `--version` (and `petctl version`) is answered from package.json, and help
// (`--help`, `-h`, `help [command…]`, a bare `petctl` or group, `petctl pets`) from the pages the build captured
// (dist/help.json, scripts/help-page.ts), without loading the program. Every other command
// loads dist/petctl.cjs through V8's code
// cache (Node 20 has no module.enableCompileCache), sets process.exitCode to
// what main returns, and exits once output is flushed; an interrupted run
// (exit 130) ends by its signal, SIGINT or SIGTERM, as shells expect.
// This file is CommonJS (bin/package.json says so) although the package is
// "type": "module": an ES module entry makes Node set up its ESM loader first,
// in every run (docs/performance.md, "What keeps start-up short").
'use strict';
const { readFileSync } = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
/** A run shorter than this may write the code cache (see below). */
const SHORT_RUN_SECONDS = 2;
/** Help of some kind: answered from the captured pages, or by the program from its lite code cache. */
const helpOnly = args.length === 0 || args[0] === 'help' || args.some((arg) => arg === '--help' || arg === '-h');
/** One word may name a group (`petctl pets`), which prints its page as --help does; the pages know. */
const maybeGroup = args.length === 1 && /^[a-z]/.test(args[0]);
// `petctl pets list | head -1`: a pipe closed by its reader is not an error. Any other write stdout refuses (`> file`
// on a full disk) the program tells (output_unwritable, main.ts): a version or page written here is asked of it again.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});
const refused = () => process.stdout.errored != null && process.stdout.errored.code !== 'EPIPE';
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V' || args[0] === 'version')) {
  const { version } = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  process.stdout.write(`${version}\n`);
  if (refused()) run();
} else if (!((helpOnly || maybeGroup) && printHelpPage() && !refused())) {
  run();
}

/**
 * The help page the arguments ask for, laid out at the width commander would use (the terminal's,
 * else 80). False when they ask for something no page answers (a guide, a command that does not
 * exist or that runs, another flag), or the pages cannot be read: the program answers then.
 */
function printHelpPage() {
  let page;
  try {
    const { helpPage } = require('../dist/help.cjs');
    const pages = JSON.parse(readFileSync(path.join(__dirname, '..', 'dist', 'help.json'), 'utf8'));
    page = helpPage(pages, args, process.stdout.isTTY ? process.stdout.columns : undefined);
  } catch {
    return false;
  }
  if (page === undefined) return false;
  process.stdout.write(page);
  return true;
}

async function run() {
  const builtin = (name) => process.getBuiltinModule(name);
  const { mkdirSync, renameSync, writeFileSync } = builtin('node:fs');
  const { setFlagsFromString } = builtin('node:v8');
  const { Script, constants: vmConstants } = builtin('node:vm');
  // undici parses HTTP with WebAssembly. V8 compiles it quickly (Liftoff), then
  // optimises it on a background thread, and the process cannot exit until that
  // finishes, in every run, for code a CLI runs once (docs/performance.md). Liftoff alone is plenty.
  setFlagsFromString('--liftoff-only');
  const bundle = path.join(__dirname, '..', 'dist', 'petctl.cjs');
  let source;
  try {
    // The bundle is ASCII (scripts/build.mjs makes sure): latin1 reads it as utf8 would, without
    // UTF-8 validation of the whole bundle in every start (docs/performance.md).
    source = readFileSync(bundle, 'latin1');
  } catch (error) {
    const reason = error.code === 'ENOENT' ? 'petctl is not built; run `npm install` (or `npm run build`) in its folder' : `cannot read ${bundle}: ${error.message}`;
    process.stderr.write(`error: ${reason}\n`);
    process.exitCode = 1;
    return;
  }

  // The cache sits beside the bundle, owned like the code it belongs to: V8
  // trusts cached bytecode, so it never lives in a shared directory such as /tmp.
  // "full" caches come from runs that loaded the HTTP core, "lite" from the rest.
  // Help reads only the lite one, which V8 loads faster (docs/performance.md);
  // without it, help compiles from source once and writes it (a lite cache
  // written by a run that had loaded the full one would be as large).
  const cacheDir = path.join(__dirname, '..', 'dist', '.cache', path.sep);
  const cacheName = (kind) => `${cacheDir}${process.version}-${process.arch}-${kind}.bin`;
  let cachedData;
  let cacheKind;
  for (const kind of helpOnly ? ['lite'] : ['full', 'lite']) {
    try {
      cachedData = readFileSync(cacheName(kind));
      cacheKind = kind;
      break;
    } catch {}
  }

  // CommonJS's own wrapper (node:module's Module.wrap, which is not loaded for this: docs/performance.md).
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n});`, {
    filename: bundle,
    cachedData,
    // Lets an import() of a Node built-in inside the bundle resolve as it would in a module.
    importModuleDynamically: vmConstants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  // The cache's bytes are V8's now, and the script keeps its own (wrapped) copy
  // of the source: letting go of both lets a collection free them (peak RSS).
  const hadCache = cachedData !== undefined;
  cachedData = undefined;
  source = undefined;
  const module = { exports: {} };
  // This file's require resolves as one made for the bundle would: bin/ and dist/ are siblings.
  script.runInThisContext()(module.exports, require, module, bundle, path.dirname(bundle));

  const controller = new AbortController();
  // A command may take the first Ctrl-C itself (bulk import stops sending gracefully).
  let softInterrupt;
  // The signal that interrupted this run: petctl ends by it once main has cleaned up.
  let received;
  const interrupt = (signal) => {
    // A Ctrl-C after the abort (while cleaning up) ends the process at once.
    if (controller.signal.aborted) return endBySignal(signal);
    received = signal;
    if (signal === 'SIGINT' && softInterrupt) {
      const handler = softInterrupt;
      softInterrupt = undefined;
      handler();
      return;
    }
    controller.abort();
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  const interrupts = { set: (handler) => (softInterrupt = handler) };
  // stderr refused (`2>>log` on a full disk): there is nowhere to say so, and the exit code still tells what happened
  // (unheard, the error would end petctl with 1 whatever it was).
  process.stderr.on('error', () => {});

  // stdin is created on first use only: opening it costs start-up time and only auth login reads it.
  const io = { stdout: process.stdout, stderr: process.stderr, get stdin() { return process.stdin; } };
  process.exitCode = await module.exports.main(args, { io, env: process.env, signal: controller.signal, interrupts });

  const ranFull = module.exports.loadedHttpCore?.() === true;
  const wantedKind = ranFull ? 'full' : helpOnly ? 'lite' : cacheKind;
  // Only a short run writes a cache. Over a long one (petctl sandbox serving, a bulk import) V8's
  // collector flushes the bytecode of functions not run lately, start-up's among them, and a cache
  // taken then starts the next commands no faster than none (docs/performance.md).
  const shortRun = process.uptime() < SHORT_RUN_SECONDS;
  if (shortRun && (!hadCache || script.cachedDataRejected || cacheKind !== wantedKind)) {
    try {
      mkdirSync(cacheDir, { recursive: true });
      const target = cacheName(ranFull ? 'full' : 'lite');
      const temp = `${target}.${process.pid}.tmp`;
      writeFileSync(temp, script.createCachedData());
      renameSync(temp, target);
    } catch {
      // A read-only install runs without a cache, just slower to start.
    }
  }

  // Exit as soon as stdout and stderr are flushed, rather than when the event
  // loop drains: nothing petctl started is still needed (main cleaned up).
  const pending = [process.stdout, process.stderr].filter((stream) => stream.writableLength > 0);
  await Promise.all(pending.map((stream) => new Promise((resolve) => stream.once('drain', resolve))));
  // Interrupted (exit 130): end by the signal itself, as a shell expects, so that
  // `for f in *.csv; do petctl pets add --file "$f"; done` stops at the first Ctrl-C
  // (bash goes on with the loop after a child that exits 130 on its own). A Ctrl-C
  // typed at a prompt arrives as a key, not a signal, and ends the same way.
  if (process.exitCode === 130) endBySignal(received ?? 'SIGINT');
  else process.exit();

  /**
   * Removes every handler of the two signals (petctl's, and signal-exit's, which
   * proper-lockfile and conf install: it would take the signal on the event loop,
   * which ends first), so the default action applies, and sends the signal to
   * this process: the shell sees 130 (SIGINT) or 143 (SIGTERM). main has cleaned
   * up (locks released, journal flushed). Should the signal be late, the process
   * exits 130 when nothing is left to do.
   */
  function endBySignal(signal) {
    process.removeAllListeners('SIGINT');
    process.removeAllListeners('SIGTERM');
    process.exitCode = 130;
    process.kill(process.pid, signal);
  }
}
