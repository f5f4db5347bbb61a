import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Import, SRC, importsOf, sourceFiles } from '../helpers/imports';

/**
 * The HTTP core imports nothing above it (CONTRIBUTING.md, "The flow"): node's modules, npm packages, the schemas,
 * the foundations below every layer, and types only from config/. What sits above is handed in by the caller.
 */

const API = path.join(SRC, 'api');

/** Modules every layer may use: they know nothing of commands, output or the terminal. */
const FOUNDATIONS = ['errors.ts', 'locked-file.ts', 'file-safety.ts', 'digest.ts'];

/** Why an import breaks the rule, or undefined when it keeps it. */
function violation(imported: Import): string | undefined {
  const { specifier } = imported;
  if (specifier.startsWith('node:')) return undefined;
  if (!specifier.startsWith('.')) return undefined; // an npm package
  const target = path.relative(SRC, path.resolve(path.dirname(imported.file), specifier)).split(path.sep).join('/');
  if (target.startsWith('api/') || target.startsWith('schemas/')) return undefined;
  if (FOUNDATIONS.some((name) => target === name.replace(/\.ts$/, ''))) return undefined;
  if (target.startsWith('config/')) return imported.typeOnly ? undefined : `a value from src/${target} (only types may come from config/)`;
  return `src/${target} is above the HTTP core`;
}

describe('the import direction of src/api/', () => {
  const files = sourceFiles(API);

  it('finds the core and reads its imports', () => {
    expect(files.map((file) => path.relative(API, file))).toEqual(expect.arrayContaining(['client.ts', 'attempt.ts', 'answer.ts', 'waits.ts', 'endpoints/pets.ts']));
    const client = fs.readFileSync(path.join(API, 'client.ts'), 'utf8');
    expect(importsOf(path.join(API, 'client.ts'), client).map((imported) => imported.specifier)).toContain('./waits');
  });

  it.each(files.map((file) => [path.relative(SRC, file), file]))('%s imports nothing above the core', (_name, file) => {
    const broken = importsOf(file, fs.readFileSync(file, 'utf8'))
      .map((imported) => ({ specifier: imported.specifier, why: violation(imported) }))
      .filter((imported) => imported.why !== undefined);
    expect(broken).toEqual([]);
  });
});

describe('the rule itself', () => {
  const file = path.join(API, 'client.ts');
  const check = (line: string) => importsOf(file, line).map(violation);

  it.each([
    ["import { formatWait } from '../output/time';", 'src/output/time is above the HTTP core'],
    ["import { DEFAULT_PORT } from '../sandbox/defaults';", 'src/sandbox/defaults is above the HTTP core'],
    ["const m = await import('../sandbox/server');", 'src/sandbox/server is above the HTTP core'],
    ["export { describeWait } from '../output/waits';", 'src/output/waits is above the HTTP core'],
    ["import { type ResolvedTarget, requireKey } from '../config/target';", 'a value from src/config/target (only types may come from config/)'],
  ])('refuses %s', (line, why) => {
    expect(check(line)).toEqual([why]);
  });

  it.each([
    "import fs from 'node:fs';",
    "import type { Dispatcher } from 'undici';",
    "import { parseJson } from '../schemas/json';",
    "import { NetworkError } from '../errors';",
    "import { type ResolvedTarget, type Source } from '../config/target';",
    "import { attempt } from './attempt';",
  ])('allows %s', (line) => {
    expect(check(line)).toEqual([undefined]);
  });
});
