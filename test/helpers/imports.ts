import fs from 'node:fs';
import path from 'node:path';

/** What src/ files import, read as text: the rules on arrows (test/api/import-direction, test/import-circles). */

export const ROOT = path.resolve(__dirname, '../..');
export const SRC = path.join(ROOT, 'src');

export interface Import {
  file: string;
  specifier: string;
  typeOnly: boolean;
}

/** The files below `dir` (absolute paths) whose names `keep` takes: TypeScript files unless told. */
export function sourceFiles(dir: string, keep = (name: string) => name.endsWith('.ts')): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full, keep);
    return keep(entry.name) ? [full] : [];
  });
}

/** Every import, export-from and import() of a file, with whether it brings only types. */
export function importsOf(file: string, text: string): Import[] {
  const found: Import[] = [];
  // Comments may quote import lines; they import nothing.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const statement = /(?:^|;|\n)\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;
  for (const match of code.matchAll(statement)) {
    const clause = match[3] ?? '';
    const names = /^\{([\s\S]*)\}$/.exec(clause.trim())?.[1];
    const everyNameTyped = names !== undefined && names.split(',').filter((name) => name.trim() !== '').every((name) => /^\s*type\s/.test(name));
    found.push({ file, specifier: match[4]!, typeOnly: match[2] !== undefined || everyNameTyped });
  }
  for (const match of code.matchAll(/(?:^|[^.\w])import\s+['"]([^'"]+)['"]/g)) found.push({ file, specifier: match[1]!, typeOnly: false });
  for (const match of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push({ file, specifier: match[1]!, typeOnly: /\btypeof\s+import\(|:\s*import\(|<import\(/.test(code.slice(Math.max(0, match.index - 8), match.index + 7)) });
  return found;
}
