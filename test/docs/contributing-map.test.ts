import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, SRC, sourceFiles } from '../helpers/imports';

/** CONTRIBUTING.md's map names every file of src/ where a newcomer would look, and names no file that is not there. */

const text = fs.readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8');
const map = /```\n(bin\/petctl\.js[\s\S]*?)```/.exec(text)?.[1] ?? '';

/** The map's parts: a top-level line (`src/main.ts …`, `src/api/ …`) and the indented lines under it. */
function sections(): Map<string, string[]> {
  const parts = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of map.split('\n')) {
    const head = /^(\S+)/.exec(line)?.[1];
    if (head !== undefined) parts.set(head, (current = [line]));
    else if (line.trim() !== '' && current) current.push(line);
  }
  return parts;
}

const names = (line: string): string[] => [...line.matchAll(/(?<![\w./-])([\w-]+\.(?:d\.ts|ts|bash|zsh|fish))(?![\w.-])/g)].map((m) => m[1]!);
const mentions = (line: string, name: string): boolean => names(line).includes(name);

describe("CONTRIBUTING.md's map of the code", () => {
  const parts = sections();

  it.each(sourceFiles(SRC, () => true).map((file) => path.relative(ROOT, file)))('names %s where a newcomer would look', (file) => {
    const segments = file.split('/');
    const name = segments.at(-1)!;
    if (segments.length === 2) {
      expect(parts.has(file), `a line of its own starting with ${file}`).toBe(true);
      return;
    }
    const section = parts.get(`src/${segments[1]}/`);
    expect(section, `a part of the map for src/${segments[1]}/`).toBeDefined();
    if (segments.length === 3) {
      expect(section!.some((line) => mentions(line, name))).toBe(true);
      return;
    }
    // A command group's files: on the group's line (`  pets/  index.ts registers list.ts, …`).
    const group = section!.find((line) => line.trim().startsWith(`${segments.slice(2, -1).join('/')}/`));
    expect(group, `a line for ${segments.slice(0, -1).join('/')}/`).toBeDefined();
    expect(mentions(group!, name)).toBe(true);
  });

  it('is found, and names no file that does not exist', () => {
    expect(parts.size).toBeGreaterThan(10);
    // A folder's files are named on its lines, a subfolder's on its own line (`  pets/  index.ts …`).
    const named = [...parts].flatMap(([head, lines]) =>
      !head.endsWith('/')
        ? [head]
        : lines.flatMap((line, index) => {
            const sub = index === 0 ? '' : (/^\s+([\w-]+\/)/.exec(line)?.[1] ?? '');
            return names(index === 0 ? line.slice(head.length) : line).map((name) => `${head}${sub}${name}`);
          }),
    );
    expect(named.filter((file) => !fs.existsSync(path.join(ROOT, file)))).toEqual([]);
  });
});
