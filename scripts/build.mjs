// Bundles src/ into one CommonJS file, dist/petctl.cjs, that bin/petctl.js loads
// through V8's code cache. One file means one read and no module resolution at
// start-up; heavy modules sit behind dynamic import() and are only evaluated
// when a command needs them (esbuild turns those imports into lazy initialisers).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { constants as http2Constants } from 'node:http2';
import { fileURLToPath } from 'node:url';
import { GUIDE_SOURCES, guideBlocks, guideMarkdown } from './guides.mjs';
import { writeHelpPages } from './help-pages.mjs';
import { writeManPages } from './man.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// The build goes to a private folder and is renamed into dist/ only when whole: npm runs this
// script again on every `npm install` in a clone (preprepare) and before `npm pack` (prepack),
// and another petctl started meanwhile, a test suite's for one, must find the old bundle or the
// new one, never none.
const dist = new URL('../dist/', import.meta.url);
const staging = new URL(`.build-${process.pid}/`, dist);
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });

/**
 * Two built-in modules that libraries load at start-up but petctl never uses:
 * commander requires node:child_process for executable subcommands (we have
 * none), and undici requires node:http2 for HTTP/2, which petctl does not
 * enable. Loading them costs every run (docs/performance.md), so the bundle gets stand-ins that
 * load the real module only if a function of it is ever called.
 */
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^node:(child_process|http2)$/ }, (args) => {
      const fromLibrary = /node_modules[\\/](commander|undici)[\\/]/.test(args.importer);
      return fromLibrary ? { path: args.path, namespace: 'lazy-builtin' } : undefined;
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => {
      const real = `require(${JSON.stringify(args.path)})`;
      // http2's constants are read when undici loads; they are plain values, copied here.
      const constants = args.path === 'node:http2' ? `constants: ${JSON.stringify(http2Constants)},` : '';
      return {
        contents: `module.exports = new Proxy({ ${constants} }, { get: (target, key) => key in target ? target[key] : ${real}[key] });`,
        loader: 'js',
      };
    });
  },
};

/**
 * Two more built-ins that load at start-up for nothing (their cost: docs/performance.md):
 * - undici calls node:assert as a function for its internal invariants and
 *   never otherwise: a stand-in that does nothing while they hold, and loads
 *   the real module to throw its AssertionError when one does not.
 * - chalk's index imports supports-color, which loads node:tty (when
 *   stdout is a pipe Node itself never needs it) and node:os to colour
 *   chalk's default instance. petctl never uses that instance: output/table.ts
 *   decides the level and builds its own Chalk, so the default gets "no colour".
 */
const lazyAssertAndNoSupportsColor = {
  name: 'lazy-assert-no-supports-color',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^node:assert$/ }, (args) =>
      /node_modules[\\/]undici[\\/]/.test(args.importer) ? { path: args.path, namespace: 'lazy-assert' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-assert' }, () => ({
      contents: `const real = () => require('node:assert');
module.exports = new Proxy(function assert(value, message) { if (!value) real()(value, message); }, { get: (target, key) => real()[key] });`,
      loader: 'js',
    }));
    pluginBuild.onResolve({ filter: /^#supports-color$/ }, (args) =>
      /node_modules[\\/]chalk[\\/]/.test(args.importer) ? { path: args.path, namespace: 'no-supports-color' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'no-supports-color' }, () => ({
      contents: 'export default { stdout: false, stderr: false };',
      loader: 'js',
    }));
  },
};

/**
 * undici loads node:http for two values only: `IncomingMessage`, which
 * lib/core/util.js compares against when it destroys a request body, and
 * `http.maxHeaderSize`, which lib/dispatcher/client.js reads when it loads, as
 * the default for a Client's maxHeaderSize. Both become reads at the point of
 * use, and src/api/transport.ts sets maxHeaderSize, so a run that never sends
 * an IncomingMessage never loads node:http. The patches are exact text: if
 * undici's source changes, the build fails here rather than bundling it unpatched.
 */
const undiciLazyHttp = {
  name: 'undici-lazy-http',
  setup(pluginBuild) {
    const patches = {
      'lib/core/util.js': [
        ["const { IncomingMessage } = require('node:http')\n", ''],
        ['constructor === IncomingMessage)', "constructor === require('node:http').IncomingMessage)"],
      ],
      'lib/dispatcher/client.js': [
        ["const http = require('node:http')\n", ''],
        [
          `const getDefaultNodeMaxHeaderSize = http &&
  http.maxHeaderSize &&
  Number.isInteger(http.maxHeaderSize) &&
  http.maxHeaderSize > 0
  ? () => http.maxHeaderSize
  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }`,
          `const getDefaultNodeMaxHeaderSize = () => {
  const { maxHeaderSize } = require('node:http')
  if (Number.isInteger(maxHeaderSize) && maxHeaderSize > 0) return maxHeaderSize
  throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid')
}`,
        ],
      ],
    };
    pluginBuild.onLoad({ filter: /node_modules[\\/]undici[\\/]lib[\\/](core[\\/]util|dispatcher[\\/]client)\.js$/ }, async (args) => {
      const file = Object.keys(patches).find((name) => args.path.replaceAll('\\', '/').endsWith(`undici/${name}`));
      let contents = await readFile(args.path, 'utf8');
      for (const [from, to] of patches[file]) {
        if (!contents.includes(from)) throw new Error(`undici-lazy-http: ${file} no longer contains ${JSON.stringify(from.split('\n')[0])}`);
        contents = contents.replace(from, to);
      }
      return { contents, loader: 'js' };
    });
  },
};

/**
 * ioredis logs through `debug`, which prints when DEBUG=ioredis:* is set, and
 * it logs every command with its arguments: AUTH and HELLO carry the state
 * store's password. petctl never prints that password, so the bundle gives
 * ioredis a `debug` that is always off (`-v` traces the state store instead).
 */
const silentDebug = {
  name: 'silent-debug',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^debug$/ }, (args) =>
      /node_modules[\\/]ioredis[\\/]/.test(args.importer) ? { path: 'debug', namespace: 'silent-debug' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'silent-debug' }, () => ({
      contents: 'const debug = () => Object.assign(() => {}, { enabled: false }); module.exports = debug; module.exports.default = debug;',
      loader: 'js',
    }));
  },
};

/**
 * conf imports ajv, ajv-formats and semver for its `schema` and `migrations` options, which
 * petctl never passes (config/profiles.ts). They are a sixth of the bundle, and every run reads
 * and copies the whole bundle before it starts (docs/performance.md): conf gets stand-ins
 * that throw should an option that needs them ever be passed.
 */
const confWithoutSchemas = {
  name: 'conf-without-schemas',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^(ajv\/dist\/2020\.js|ajv-formats|semver)$/ }, (args) =>
      /node_modules[\\/]conf[\\/]/.test(args.importer) ? { path: args.path, namespace: 'conf-unused' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'conf-unused' }, (args) => {
      const unused = `() => { throw new Error(${JSON.stringify(`${args.path} is not bundled: petctl passes conf no schema and no migrations`)}); }`;
      return { contents: `const unused = ${unused}; module.exports = new Proxy(unused, { get: unused });`, loader: 'js' };
    });
  },
};

/**
 * undici's HTTP parser is WebAssembly, bundled as two base64 strings of 72 KB each: the SIMD
 * build and a fallback for CPUs without SIMD. As files beside the bundle they are read as bytes
 * when the first request is sent, and the start of every run reads 144 KB less source.
 */
const llhttpFiles = {
  name: 'llhttp-files',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /node_modules[\\/]undici[\\/]lib[\\/]llhttp[\\/]llhttp(_simd)?-wasm\.js$/ }, async (args) => {
      const name = args.path.includes('_simd') ? 'llhttp_simd.wasm' : 'llhttp.wasm';
      const source = await readFile(args.path, 'utf8');
      const base64 = /const wasmBase64 = '([A-Za-z0-9+/=]+)'/.exec(source)?.[1];
      if (!base64) throw new Error(`llhttp-files: ${args.path} no longer holds its module as one base64 string`);
      wasmFiles.set(name, Buffer.from(base64, 'base64'));
      return { contents: `module.exports = require('node:fs').readFileSync(require('node:path').join(__dirname, ${JSON.stringify(name)}));`, loader: 'js' };
    });
  },
};
/** The WebAssembly files llhttpFiles took out of the bundle, written beside it. */
const wasmFiles = new Map();

const minify = process.env.PETCTL_NO_MINIFY !== '1';

try {
  await build({
    plugins: [lazyBuiltins, lazyAssertAndNoSupportsColor, undiciLazyHttp, silentDebug, confWithoutSchemas, llhttpFiles],
    entryPoints: ['src/main.ts'],
    // A native binding, an optional dependency: resolved from node_modules at run time (config/keychain.ts).
    external: ['@napi-rs/keyring'],
    outfile: fileURLToPath(new URL('petctl.cjs', staging)),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20.18',
    minify,
    keepNames: true,
    legalComments: 'linked',
    // ASCII only (other characters escaped), so bin/petctl.js can read it as latin1.
    charset: 'ascii',
    define: { __PETCTL_VERSION__: JSON.stringify(pkg.version) },
    logLevel: 'warning',
  });

  // bin/petctl.js reads the bundle as latin1, which is only right for ASCII. charset 'ascii' escapes
  // every string and identifier; only the comments an unminified debug build keeps may hold other
  // characters, and latin1 garbles nothing but those.
  if (minify && /[^\x00-\x7f]/.test(readFileSync(new URL('petctl.cjs', staging), 'latin1'))) {
    throw new Error('dist/petctl.cjs is not ASCII; bin/petctl.js reads it as latin1');
  }

  if (wasmFiles.size !== 2) throw new Error(`llhttp-files: expected undici's two parsers, found ${[...wasmFiles.keys()].join(', ') || 'none'}`);
  for (const [name, bytes] of wasmFiles) writeFileSync(new URL(name, staging), bytes);
  // The completion scripts, read beside the bundle as beside src/completion/complete.ts.
  for (const shell of ['bash', 'zsh', 'fish']) {
    copyFileSync(new URL(`../src/completion/petctl.${shell}`, import.meta.url), new URL(`petctl.${shell}`, staging));
  }

  const guides = new URL('guides/', staging);
  mkdirSync(guides);
  for (const topic of Object.keys(GUIDE_SOURCES)) {
    writeFileSync(new URL(`${topic}.json`, guides), JSON.stringify(guideBlocks(guideMarkdown(topic, new URL('../', import.meta.url)))));
  }
  // The man and help pages are made from the command tree of the bundle itself.
  const { buildProgram } = createRequire(import.meta.url)(fileURLToPath(new URL('petctl.cjs', staging)));
  await writeManPages(new URL('man/', staging), pkg.version, buildProgram);
  await writeHelpPages(staging, Object.keys(GUIDE_SOURCES), buildProgram);

  // V8 checks a code cache against its source's length only, so the old bundle's caches go.
  rmSync(new URL('.cache/', dist), { recursive: true, force: true });
  for (const entry of readdirSync(staging, { withFileTypes: true })) {
    const { name } = entry;
    // A file is renamed over the old one, which is never missing. A folder cannot be renamed over a full one: the old
    // one moves aside first, for as short a time as can be.
    const old = new URL(`${name}.old-${process.pid}`, dist);
    if (entry.isDirectory()) {
      try {
        renameSync(new URL(name, dist), old);
      } catch {}
    }
    renameSync(new URL(name, staging), new URL(name, dist));
    rmSync(old, { recursive: true, force: true });
  }
} finally {
  rmSync(staging, { recursive: true, force: true });
}
