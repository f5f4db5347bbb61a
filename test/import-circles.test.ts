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

/** The circles: each strongly connected group of two or more files, or a file importing itself (Tarjan). */
export function circles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group = stack.splice(stack.indexOf(file));
    if (group.length > 1 || graph.get(file)?.includes(file)) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

describe('imports in src/', () => {
  const graph = graphOf(sourceFiles(SRC));

  it('reads every file and its arrows', () => {
    expect(graph.get('main.ts')).toEqual(expect.arrayContaining(['commands/root.ts', 'context.ts']));
    expect(graph.get('commands/pets/index.ts')).toEqual(expect.arrayContaining(['commands/pets/get.ts']));
  });

  it('make no circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('from bulk/ point down: nothing above it (output/, input/, app/, commands/, context.ts), types included', () => {
    const above = /^(output|input|app|commands)\/|^(context|main)\.ts$/;
    const upward = [...graph].flatMap(([file, to]) => (file.startsWith('bulk/') ? to.filter((t) => above.test(t)).map((t) => `${file} -> ${t}`) : []));
    expect(upward).toEqual([]);
  });
});

describe('the circle finder', () => {
  it.each([
    ['a pair', { 'a.ts': ['b.ts'], 'b.ts': ['a.ts'] }, [['a.ts', 'b.ts']]],
    ['a ring of four', { 'k.ts': ['t.ts'], 't.ts': ['p.ts'], 'p.ts': ['s.ts'], 's.ts': ['k.ts', 'x.ts'], 'x.ts': [] }, [['k.ts', 'p.ts', 's.ts', 't.ts']]],
    ['a file importing itself', { 'a.ts': ['a.ts'] }, [['a.ts']]],
    ['a tree', { 'root.ts': ['a.ts', 'b.ts'], 'a.ts': ['types.ts'], 'b.ts': ['types.ts'], 'types.ts': [] }, []],
  ])('%s', (_name, edges, expected) => {
    expect(circles(new Map(Object.entries(edges)))).toEqual(expected);
  });
});
