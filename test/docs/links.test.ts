import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/imports';

/** A #fragment is a heading by GitHub's anchor rules: lower case, punctuation dropped, spaces to hyphens. */

const pages = ['README.md', 'CONTRIBUTING.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  return found;
}

function links(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((href) => !/^[a-z]+:/i.test(href));
}

it.each(pages)('documentation links: %s: every relative link and anchor resolves', (page) => {
  const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
  const broken: string[] = [];
  for (const href of links(text)) {
    const [file, fragment] = href.split('#') as [string, string | undefined];
    const target = file === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), file);
    if (!fs.existsSync(target)) {
      broken.push(`${href}: no such file`);
      continue;
    }
    if (fragment !== undefined && target.endsWith('.md') && !anchors(fs.readFileSync(target, 'utf8')).has(fragment)) broken.push(`${href}: no such heading`);
  }
  expect(broken).toEqual([]);
});
