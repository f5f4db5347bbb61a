import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, importsOf, sourceFiles } from './helpers/imports';

/** Every import, `import type` and import() between src/ files is an arrow; no arrow leads back to where it started. */

type Graph = Map<string, string[]>;

/** The file a relative specifier names: `./x` is x.ts or x/index.ts. */
function resolve(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier.replace(/\.js$/, ''));
  return [`${base}.ts`, path.join(base, 'index.ts')].find((file) => fs.existsSync(file));
}

function graphOf(files: string[]): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const targets = importsOf(file, fs.readFileSync(file, 'utf8'))
      .filter((imported) => imported.specifier.startsWith('.'))
      .map((imported) => resolve(file, imported.specifier))
      .filter((target): target is string => target !== undefined);
    graph.set(path.relative(SRC, file), [...new Set(targets.map((target) => path.relative(SRC, target)))]);
  }
  return graph;
}

/** What is left after peeling off, again and again, each file whose imports are all peeled: the files on a circle or above one. */
export function circles(graph: Graph): string[] {
  const left = new Map(graph);
  let peeled = true;
  while (peeled) {
    peeled = false;
    for (const [file, to] of left) {
      if (to.some((next) => left.has(next))) continue;
      left.delete(file);
      peeled = true;
    }
  }
  return [...left.keys()].sort();
}

describe('imports in src/', () => {
  const graph = graphOf(sourceFiles(SRC));

  it('make no circle (read from every file and its arrows)', () => {
    expect(graph.get('main.ts')).toEqual(expect.arrayContaining(['commands/root.ts', 'context.ts']));
    expect(graph.get('commands/pets/index.ts')).toEqual(expect.arrayContaining(['commands/pets/get.ts']));
    expect(circles(graph)).toEqual([]);
  });

  it('from bulk/ point down: nothing above it (output/, input/, app/, commands/, context.ts), types included', () => {
    const above = /^(output|input|app|commands)\/|^(context|main)\.ts$/;
    const upward = [...graph].flatMap(([file, to]) => (file.startsWith('bulk/') ? to.filter((t) => above.test(t)).map((t) => `${file} -> ${t}`) : []));
    expect(upward).toEqual([]);
  });
});

it.each([
  ['a pair, and a file above it', { 'a.ts': ['b.ts'], 'b.ts': ['a.ts'], 'main.ts': ['a.ts'] }, ['a.ts', 'b.ts', 'main.ts']],
  ['a ring of four', { 'k.ts': ['t.ts'], 't.ts': ['p.ts'], 'p.ts': ['s.ts'], 's.ts': ['k.ts', 'x.ts'], 'x.ts': [] }, ['k.ts', 'p.ts', 's.ts', 't.ts']],
  ['a file importing itself', { 'a.ts': ['a.ts'] }, ['a.ts']],
  ['a tree', { 'root.ts': ['a.ts', 'b.ts'], 'a.ts': ['types.ts'], 'b.ts': ['types.ts'], 'types.ts': [] }, []],
])('the circle finder: %s', (_name, edges, expected) => {
  expect(circles(new Map(Object.entries(edges)))).toEqual(expected);
});
