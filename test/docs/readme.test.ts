import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/imports';

/** The README is the front door (STYLE.md's Documents); how the product came to be is in the commit history. */

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));

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
    for (const page of [...docs.map((name) => `docs/${name}`), 'CONTRIBUTING.md']) expect(readme).toContain(`](${page})`);
  });

  it("says in the exit-code table that an unknown profile is a usage error (2), wherever it was named", () => {
    const row = readme.split('\n').find((line) => line.startsWith('| 2 |'));
    expect(row).toBeDefined();
    for (const where of ['unknown profile', '`-p`', '`PETCTL_PROFILE`', 'profile show\\|use\\|remove']) expect(row).toContain(where);
  });
});

const pages = ['README.md', 'CONTRIBUTING.md', ...docs.map((name) => `docs/${name}`)];
// Words that narrate the project's history rather than the product.
const HISTORY = /\bissue \d+\b|\bwhere the issue\b|\bthe issue (?:says|states|asks)\b|\bas of this version\b|\b(?:before|after) this (?:work|change|version)\b|\bthe previous version\b|\bis being rewritten\b|\bbefore the [\w' ]+ (?:was|were) rewritten\b/i;

it.each(pages)('the documents describe the product as it is: %s tells no history', (page) => {
  const lines = fs.readFileSync(path.join(ROOT, page), 'utf8').split('\n');
  expect(lines.filter((line) => HISTORY.test(line))).toEqual([]);
});
