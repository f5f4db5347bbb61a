// Not a benchmark: compiles TypeScript modules of this repository (src/, test/helpers/) into one
// ES module a benchmark can import, the way the bundle compiles src/.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles `lines` (export statements, paths from the repository's root) into `dir`/`name`.mjs and imports it. */
export async function compileModules(dir, name, lines) {
  const outfile = path.join(dir, `${name}.mjs`);
  await build({
    stdin: { contents: lines.join('\n'), resolveDir: root, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  return import(pathToFileURL(outfile).href);
}
