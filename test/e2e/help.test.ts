import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NODE, PACKAGE_VERSION, cleanEnv, runCli, tempDir } from '../helpers/cli';
import { GUIDE_SOURCES, guideMarkdown } from '../../scripts/guides.mjs';
import { GUIDE_TOPICS } from '../../src/commands/help';

/**
 * Help where people look: a bare `petctl`, `petctl help [command…]`,
 * `petctl help <topic>` and `petctl version`, run as the built binary with
 * stdout a pipe. The same in a real terminal: help-terminal.test.ts.
 */

const ROOT = new URL('../../', import.meta.url);
const TOPICS = Object.keys(GUIDE_SOURCES);

/** Every command's words, from `petctl --help` down. */
async function allCommands(words: string[] = []): Promise<string[][]> {
  const help = await runCli([...words, '--help']);
  const section = help.stdout.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '';
  const subs = section.split('\n').map((line) => /^ {2}([a-z][\w-]*)/.exec(line)?.[1]).filter((name): name is string => name !== undefined);
  const nested = await Promise.all(subs.map((name) => allCommands([...words, name])));
  return [words, ...nested.flat()];
}

/** The words a Markdown page shows once its syntax is gone, links to a guide read as the command that prints it. */
function markdownWords(markdown: string): string[] {
  const text = markdown
    .replace(/^\s*(```|~~~).*$/gm, '')
    .replace(/^\s*\|[\s|:-]+\|\s*$/gm, '')
    .replace(/\[([^\][]*)\]\(([^)\s]+)\)/g, (_match, linked: string, target: string) => {
      const page = /^(?:docs\/)?([\w-]+)\.md/.exec(target)?.[1];
      if (page !== undefined && page in GUIDE_SOURCES && page !== 'exit-codes') return [`docs/${page}.md`, `${page}.md`].includes(linked) ? `petctl help ${page}` : `${linked} (petctl help ${page})`;
      return /^https?:/.test(target) && linked !== target ? `${linked} (${target})` : linked;
    })
    // A table's cell borders, but not an escaped \| inside a cell.
    .replace(/^\s*\|.*$/gm, (row) => row.replace(/(?<!\\)\|/g, ' ').replace(/\\\|/g, '|'))
    // Bold, but not stars inside a code span (a masked key, `****-pro`, is shown as written).
    .replace(/`[^`]*`|\*\*([^*]+)\*\*/g, (span: string, bold?: string) => bold ?? span)
    .replace(/`/g, '')
    .replace(/(^|[\s(])\*([^*\s][^*]*)\*(?=[\s.,;:)]|$)/gm, '$1$2')
    .replace(/^#+\s+/gm, '');
  return words(text);
}

/** Words, without list markers. */
function words(text: string): string[] {
  return text.split(/\s+/).filter((word) => word !== '' && !/^([-*+]|\d+[.)])$/.test(word));
}

describe('help where people look', () => {
  it('a group without a command (pets, auth, profile, cache) prints its help, from the program after a global flag too; a word after it is a usage error', async () => {
    for (const group of ['pets', 'auth', 'profile', 'cache']) {
      const help = (await runCli([group, '--help'])).stdout;
      for (const args of [['-q', group], [group, '-q']]) {
        const result = await runCli(args);
        expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ args, code: 0, stdout: help, stderr: '' });
      }
      const unknown = await runCli([group, 'xyzzy']);
      expect({ group, code: unknown.code, stdout: unknown.stdout }).toEqual({ group, code: 2, stdout: '' });
      expect(unknown.stderr).toBe(`error: unknown command 'xyzzy' (usage_error)\nhint: see petctl ${group} --help\n`);
    }
  });

  it('petctl version prints what --version prints', async () => {
    const version = await runCli(['version']);
    expect(version).toMatchObject({ code: 0, stdout: `${PACKAGE_VERSION}\n`, stderr: '' });
    for (const args of [['--version'], ['-V'], ['-q', '--version']]) expect((await runCli(args)).stdout).toBe(version.stdout);
    // Past the shim's fast path (another word after it), the bundle answers the same.
    expect((await runCli(['version', '--help'])).stdout).toContain('print the version');
  });

  it('every command\'s help, from the program, is what --help, -h and petctl help print from the pages the build captured (a bare petctl or group too), even in an install without dist/petctl.cjs; none names a path in the repository', async () => {
    const install = tempDir('petctl-help-only-');
    for (const file of ['bin/petctl.js', 'bin/package.json', 'dist/help.cjs', 'dist/help.json', 'package.json']) {
      fs.mkdirSync(path.join(install, path.dirname(file)), { recursive: true });
      fs.copyFileSync(new URL(file, ROOT), path.join(install, file));
    }
    const bin = path.join(install, 'bin', 'petctl.js');
    const run = (args: string[]) => spawnSync(NODE, [bin, ...args], { env: cleanEnv(), encoding: 'utf8', timeout: 20_000 });
    const commands = await allCommands();
    expect(commands).toContainEqual(['pets', 'add']);
    expect(commands).toContainEqual(['profile', 'set']);
    const pages = new Map<string, string>();
    try {
      for (const words of commands) {
        // The repository's petctl, with a global flag first: help the program prints, not a captured page.
        const program = await runCli(['-q', ...words, '--help']);
        expect(program.code).toBe(0);
        expect(program.stdout).toContain(`Usage: petctl ${words.join(' ')}`.trimEnd());
        expect({ words, paths: program.stdout.match(/\b(?:docs\/|README|CONTRIBUTING)[\w./-]*/g) ?? [] }).toEqual({ words, paths: [] });
        pages.set(words.join(' '), program.stdout);
        for (const args of [[...words, '--help'], [...words, '-h'], ['help', ...words]]) {
          if (args[0] === 'help' && words.length === 1 && TOPICS.includes(words[0]!)) continue;
          const page = run(args);
          expect({ args, code: page.status, stdout: page.stdout, stderr: page.stderr }).toEqual({ args, code: 0, stdout: program.stdout, stderr: '' });
        }
      }
      expect(run([])).toMatchObject({ status: 0, stdout: pages.get(''), stderr: '' });
      for (const group of ['pets', 'auth', 'profile', 'cache']) expect(run([group])).toMatchObject({ status: 0, stdout: pages.get(group), stderr: '' });
      // What no page answers goes to the program, which this install lacks.
      const list = run(['pets', 'list']);
      expect(list.status).toBe(1);
      expect(list.stderr).toMatch(/^error: petctl is not built/);
      expect(run(['help', 'rate-limits']).stderr).toMatch(/^error: petctl is not built/);
    } finally {
      fs.rmSync(install, { recursive: true, force: true });
    }
    for (const text of ['pets', 'auth', 'profile', 'sandbox', '--profile', '--output', '--base-url', '--max-wait', '--no-color', 'Exit codes', ...TOPICS]) {
      expect(pages.get('')).toContain(text);
    }
    for (const text of ['--limit <n>', '1-100', 'Examples:']) expect(pages.get('pets list')).toContain(text);
    expect(pages.get('pets list')).toMatch(/--status <status>[\s\S]*"available",\s+"pending",\s+"sold"/);
    expect(pages.get('pets add')).toContain('petctl help bulk-import');
    expect(pages.get('sandbox')).toContain('petctl help sandbox');
  }, 120_000);

  it('an unknown command or guide after help is a usage error naming the guides (exit 2)', async () => {
    const result = await runCli(['help', 'adopt']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`error: no command or guide named 'adopt' (usage_error)\nhint: guides: ${TOPICS.join(', ')}; commands: petctl --help\n`);
  });
});

describe('petctl help <topic>: the guides, from the same source as docs/', () => {
  it('petctl knows the topics the build makes a guide of, no more, no fewer', () => {
    expect([...GUIDE_TOPICS].sort()).toEqual([...TOPICS].sort());
  });

  it.each(TOPICS)('%s shows the words of its page, in order, with no Markdown left', async (topic) => {
    const result = await runCli(['help', topic], { env: { COLUMNS: '2000' } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const shown = words(result.stdout);
    expect(shown).toEqual(markdownWords(guideMarkdown(topic, ROOT)));
    expect(result.stdout).not.toMatch(/\]\(|```|^#{1,6} |(?<!\*)\*\*\w[^*]*\*\*(?!\*)/m);
  });

  it('piped, a guide is wrapped to $COLUMNS, else to 80 columns', async () => {
    // Code examples keep their lines as written, and a word longer than a line stands alone; every other line fits.
    const overlong = (text: string, width: number) =>
      text.split('\n').filter((line) => !line.startsWith('    ') && line.length > width && /\s/.test(line.trim()));
    const narrow = await runCli(['help', 'bulk-import'], { env: { COLUMNS: '50' } });
    expect(overlong(narrow.stdout, 50)).toEqual([]);
    // Filled, not merely short: most lines of prose come close to the width.
    expect(narrow.stdout.split('\n').filter((line) => line.length > 40).length).toBeGreaterThan(100);
    const standard = await runCli(['help', 'bulk-import']);
    expect(overlong(standard.stdout, 80)).toEqual([]);
    expect(standard.stdout.split('\n').filter((line) => line.length > 70).length).toBeGreaterThan(50);
  });
});
