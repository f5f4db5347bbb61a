import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COVERAGE_FILE, SPEC_FILE, coverageEntries, ruleTitle, specRules, testTitles } from './rules';

const REPO = new URL('../../', import.meta.url);
const coverage = fs.readFileSync(COVERAGE_FILE, 'utf8');
const entries = coverageEntries(coverage);
const specPresent = fs.existsSync(SPEC_FILE);
const inCi = process.env.CI === 'true' || process.env.CI === '1';

if (!specPresent && inCi) throw new Error(`CI=true and the specification is not at ${SPEC_FILE.pathname}: the coverage list cannot be checked`);
if (!specPresent) console.warn(`skipping the comparison with the specification: ${SPEC_FILE.pathname} is missing`);
const specified = specPresent ? specRules(fs.readFileSync(SPEC_FILE, 'utf8')) : [];

describe('docs/spec-coverage.md', () => {
  it('lists rules, each once', () => {
    expect(entries.length).toBeGreaterThan(50);
    const seen = new Map<string, number>();
    const twice = [];
    for (const entry of entries) {
      // The same words may be a rule in two sections ("Rules:", "Request body | none"); its heading tells them apart.
      const key = `${coverage.split('\n').slice(0, entry.line).filter((line) => line.startsWith('#')).at(-1)}\n${entry.text}`;
      if (seen.has(key)) twice.push(`line ${entry.line}: "${entry.text}" (also line ${seen.get(key)})`);
      seen.set(key, entry.line);
    }
    expect(twice).toEqual([]);
  });

  it('gives every rule a test or a reason why none can check it', () => {
    const bare = entries.filter((entry) => entry.tests.length === 0 && entry.reasons.length === 0).map((entry) => `line ${entry.line}: "${entry.text}"`);
    expect(bare).toEqual([]);
  });

  it('names only tests that exist in the files it names', () => {
    const titles = new Map<string, string[]>();
    const missing = [];
    for (const entry of entries) {
      for (const { file, name } of entry.tests) {
        const at = new URL(file, REPO);
        if (!titles.has(file)) titles.set(file, fs.existsSync(at) ? testTitles(fs.readFileSync(at, 'utf8')) : []);
        if (!titles.get(file)!.includes(name)) missing.push(`line ${entry.line}: ${file} has no test named ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it.skipIf(!specPresent)('lists every rule of the specification, in its words, and no other', () => {
    const listed = new Set(entries.map((entry) => entry.text));
    expect(specified.filter((rule) => !listed.has(rule)), 'rules of the specification missing from the list').toEqual([]);
    const known = new Set(specified);
    expect(entries.filter((entry) => !known.has(entry.text)).map((entry) => `line ${entry.line}: "${entry.text}"`), 'rules listed that the specification does not say').toEqual([]);
  });
});

describe('test/spec/', () => {
  const files = fs.readdirSync(new URL('./', import.meta.url)).filter((name) => name.endsWith('.test.ts') && name !== 'coverage.test.ts');
  const read = (file: string) => fs.readFileSync(new URL(file, import.meta.url), 'utf8');
  const groupsOf = (file: string) => testTitles(read(file)).filter((title) => title.includes(' › "'));
  const groups = files.flatMap((file) => groupsOf(file).map((title) => ({ file, title })));

  it.skipIf(!specPresent)('names each group of tests by a rule of the specification, in its words', () => {
    const rules = new Set(specified.map(ruleTitle));
    for (const file of files) expect(groupsOf(file).length, `${file} has no test named by a rule`).toBeGreaterThan(0);
    expect(groups.filter(({ title }) => !rules.has(title.slice(title.indexOf(' › ') + 3)))).toEqual([]);
  });

  it('has every group of tests listed in docs/spec-coverage.md', () => {
    const named = new Set(entries.flatMap((entry) => entry.tests.map((test) => `${test.file}\n${test.name}`)));
    expect(groups.filter(({ file, title }) => !named.has(`test/spec/${file}\n${title}`))).toEqual([]);
  });
});
