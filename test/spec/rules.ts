/**
 * The specification as a list of rules (each sentence of its prose and list items, each data row of its
 * tables), and docs/spec-coverage.md as those rules with the test, or the reason for none, beside each.
 */

export const SPEC_FILE = new URL('../../../shared/spec/pet-adoption-service.md', import.meta.url);
export const COVERAGE_FILE = new URL('../../docs/spec-coverage.md', import.meta.url);

/** The rules as the specification words them (a table row as its cells joined by " | "). */
export function specRules(markdown: string): string[] {
  const rules: string[] = [];
  let tableRow = 0;
  for (const raw of markdown.split('\n')) {
    const line = raw.trim();
    // A heading (at any level) ends a table, as a blank line does.
    if (line.startsWith('#') || line === '') {
      tableRow = 0;
      continue;
    }
    if (line.startsWith('|')) {
      tableRow += 1;
      // Row 1 names the columns, row 2 is the |---| line.
      if (tableRow > 2) rules.push(line.replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim()).join(' | '));
      continue;
    }
    tableRow = 0;
    const item = line.replace(/^(?:-|\d+\.)\s+/, '');
    // Sentences end at a full stop before a capital letter or a code span; "1.0.0" or "e.g." never split.
    const sentences = item.split(/(?<=\.)\s+(?=[A-Z`])/).map((s) => s.trim());
    for (const sentence of sentences) if (sentence !== '') rules.push(sentence);
  }
  return rules;
}

/** One entry of docs/spec-coverage.md: a quoted rule and what checks it. */
export interface CoverageEntry {
  line: number;
  text: string;
  tests: Array<{ file: string; name: string }>;
  reasons: string[];
}

/** The entries of docs/spec-coverage.md: a rule in quotes, then `- test: <file> › <title>` or `- none: <why>`. */
export function coverageEntries(markdown: string): CoverageEntry[] {
  const entries: CoverageEntry[] = [];
  for (const [index, line] of markdown.split('\n').entries()) {
    const rule = /^- "(.*)"$/.exec(line);
    if (rule) {
      entries.push({ line: index + 1, text: rule[1]!, tests: [], reasons: [] });
      continue;
    }
    const current = entries.at(-1);
    const test = /^ {2}- test: `([^`]+)` › `(.+)`$/.exec(line);
    if (test && current) current.tests.push({ file: test[1]!, name: test[2]! });
    const none = /^ {2}- none: (.+)$/.exec(line);
    if (none && current) current.reasons.push(none[1]!);
  }
  return entries;
}

/** The titles given to describe/it/test in a test file, as written (single-quoted literals unescaped). */
export function testTitles(source: string): string[] {
  const titles: string[] = [];
  const call = /\b(?:describe|it|test)(?:\.\w+)*\(\s*'((?:\\.|[^'\\])*)'/g;
  for (const match of source.matchAll(call)) titles.push(match[1]!.replace(/\\(.)/g, '$1'));
  return titles;
}

/** How a test's title quotes a rule, after its section and " › ": in its words, without Markdown. */
export function ruleTitle(rule: string): string {
  return `"${rule.replace(/`/g, '').replace(/\.$/, '')}"`;
}
