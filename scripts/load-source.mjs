// Runs a module of src/ inside the build: bundled in memory by esbuild and compiled as CommonJS,
// its packages resolved from the project's node_modules. The man pages and the help pages are
// made this way from the command tree that src/commands/root.ts builds.
import { build } from 'esbuild';
import Module from 'node:module';
import { fileURLToPath } from 'node:url';

/** The exports of `entry` (a path from the project's root, e.g. 'src/commands/root.ts'). */
export async function loadSource(entry, version) {
  const file = fileURLToPath(new URL(`../${entry}`, import.meta.url));
  const bundled = await build({
    entryPoints: [file],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    define: { __PETCTL_VERSION__: JSON.stringify(version) },
    logLevel: 'warning',
  });
  const module = new Module(file);
  module.paths = Module._nodeModulePaths(fileURLToPath(new URL('.', import.meta.url)));
  module._compile(bundled.outputFiles[0].text, file);
  return module.exports;
}
