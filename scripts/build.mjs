// Bundles src/ into one CommonJS file, dist/petctl.cjs, that bin/petctl.js loads
// through V8's code cache. One file means one read and no module resolution at
// start-up; heavy modules sit behind dynamic import() and are only evaluated
// when a command needs them (esbuild turns those imports into lazy initialisers).
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { constants as http2Constants } from 'node:http2';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

/**
 * Two built-in modules that libraries load at start-up but petctl never uses:
 * commander requires node:child_process for executable subcommands (we have
 * none), and undici requires node:http2 for HTTP/2, which petctl does not
 * enable. Loading them costs ~17 ms per run, so the bundle gets stand-ins that
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

await build({
  plugins: [lazyBuiltins, silentDebug],
  entryPoints: ['src/main.ts'],
  outfile: 'dist/petctl.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20.18',
  minify: process.env.PETCTL_NO_MINIFY !== "1",
  keepNames: true,
  legalComments: 'linked',
  define: { __PETCTL_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});
