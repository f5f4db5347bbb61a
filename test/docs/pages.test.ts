import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/imports';

/**
 * The README is the front door (STYLE.md's Documents), and every page describes the product as it is: how it
 * came to be is in the commit history. A #fragment is a heading by GitHub's anchor rules: lower case,
 * punctuation dropped, spaces to hyphens.
 */

const read = (page: string) => fs.readFileSync(path.join(ROOT, page), 'utf8');
const readme = read('README.md');
const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
const pages = ['README.md', 'CONTRIBUTING.md', ...docs.map((name) => `docs/${name}`)];
// Words that narrate the project's history rather than the product.
const HISTORY = /\bissue \d+\b|\bwhere the issue\b|\bthe issue (?:says|states|asks)\b|\bas of this version\b|\b(?:before|after) this (?:work|change|version)\b|\bthe previous version\b|\bis being rewritten\b|\bbefore the [\w' ]+ (?:was|were) rewritten\b/i;

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

describe('README.md', () => {
  it('is the front door in at most 200 lines: install, quick start, commands, profiles, output, exit codes', () => {
    expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(200);
    for (const heading of ['## Install', '## Quick start', '## Commands', '### Keys and profiles', '## Output', '## Exit codes']) {
      expect(readme).toContain(`\n${heading}\n`);
    }
    for (const command of ['pets list', 'pets add', 'pets get', 'auth login', 'auth status', 'profile add', 'profile set', 'profile use', 'api', 'sandbox', 'completion']) {
      expect(readme).toContain(`petctl ${command}`);
    }
  });

  it('links to every page of docs/ and to CONTRIBUTING.md', () => {
    for (const page of pages.slice(1)) expect(readme).toContain(`](${page})`);
  });

  it("says in the exit-code table that an unknown profile is a usage error (2), wherever it was named", () => {
    const row = readme.split('\n').find((line) => line.startsWith('| 2 |'));
    expect(row).toBeDefined();
    for (const where of ['unknown profile', '`-p`', '`PETCTL_PROFILE`', 'profile show\\|use\\|remove']) expect(row).toContain(where);
  });
});

it.each(pages)('the documents: %s tells no history, and every relative link and anchor in it resolves', (page) => {
  const text = read(page);
  expect(text.split('\n').filter((line) => HISTORY.test(line)), 'lines that tell history').toEqual([]);
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
