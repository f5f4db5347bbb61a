import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { BIN, NODE, cleanEnv, inBash, tempDir } from '../helpers/cli';

/** Every `petctl api` example in the help, the README and docs/, read out of them and run against the sandbox. */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The files the examples name, as docs/api-and-query.md describes them. */
const FIXTURES = { 'rex.json': '{"name":"Rex","categoryId":1}', 'name.txt': 'Rex' };

/** `$ petctl api …` lines, pipelines included. */
function examplesIn(text: string): string[] {
  return [...text.matchAll(/^\s*\$ (.*\bpetctl api .*)$/gm)].map((match) => match[1]!.trim());
}

const help = (args: string[]) => execFileSync(NODE, [BIN, ...args], { env: cleanEnv(), encoding: 'utf8' });
const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
const SOURCES: Array<[string, string]> = [
  ['petctl api --help', help(['api', '--help'])],
  ['petctl --help', help(['--help'])],
  ['README.md', fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')],
  ...docs.map((name): [string, string] => [`docs/${name}`, fs.readFileSync(path.join(ROOT, 'docs', name), 'utf8')]),
];
const EXAMPLES = [...new Set(SOURCES.flatMap(([, text]) => examplesIn(text)))];

it('the petctl api examples are found in every place that shows them', () => {
  const counts = Object.fromEntries(SOURCES.map(([name, text]) => [name, examplesIn(text).length]));
  expect(counts['petctl api --help']).toBeGreaterThanOrEqual(5);
  expect(counts['petctl --help']).toBeGreaterThanOrEqual(1);
  expect(counts['README.md']).toBeGreaterThanOrEqual(5);
  expect(counts['docs/api-and-query.md']).toBeGreaterThanOrEqual(10);
});

it.concurrent.for(EXAMPLES)('the petctl api example runs against the sandbox: %s', async (example) => {
  // In bash (pipefail), in a folder holding the fixtures, with a fresh config dir: the built-in sandbox profile.
  const dir = tempDir();
  for (const [name, text] of Object.entries(FIXTURES)) fs.writeFileSync(path.join(dir, name), text);
  const env = { PETCTL_CONFIG_DIR: path.join(dir, 'config'), XDG_CACHE_HOME: path.join(dir, 'cache'), FIXTURES_DIR: dir };
  const ran = await inBash(`set -o pipefail\ncd "$FIXTURES_DIR"\n${example}\n`, env);
  expect(ran.stderr, example).not.toMatch(/^error:/m);
  expect(ran.code, ran.stderr).toBe(0);
  expect(ran.stdout).not.toBe('');
  expect(ran.stdout.endsWith('\n')).toBe(true);
});
