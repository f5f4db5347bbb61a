// dist/help.json and dist/help.cjs: every command's help, captured from the command tree the bundle
// builds, and the small module that lays a page out for the terminal (scripts/help-page.ts,
// with commander's Help class and nothing else of commander). bin/petctl.js answers help with them
// without loading the program.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** `import { Help } from 'commander'` gets commander's lib/help.js: the Help class alone, ~10 KB minified. */
const commanderHelpOnly = {
  name: 'commander-help-only',
  setup(build) {
    build.onResolve({ filter: /^commander$/ }, () => ({ path: require.resolve('commander').replace(/index\.js$/, 'lib/help.js') }));
  },
};

export async function writeHelpPages(dir, guides, buildProgram) {
  await build({
    entryPoints: [fileURLToPath(new URL('help-page.ts', import.meta.url))],
    plugins: [commanderHelpOnly],
    outfile: fileURLToPath(new URL('help.cjs', dir)),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20.18',
    minify: true,
    logLevel: 'warning',
  });
  const { captureHelpPages } = require(fileURLToPath(new URL('help.cjs', dir)));
  const program = buildProgram(async () => {}, { writeOut: () => {} });
  writeFileSync(new URL('help.json', dir), JSON.stringify(captureHelpPages(program, guides)));
}
