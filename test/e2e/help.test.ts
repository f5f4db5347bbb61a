import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NODE, cleanEnv, ok, runCli, tempDir } from '../helpers/cli';
import { openTerminal } from '../helpers/tmux';
import { GUIDE_SOURCES, guideMarkdown } from '../../scripts/guides.mjs';
import { GUIDE_TOPICS } from '../../src/commands/help';

/**
 * Help where people look, piped; then petctl, its pager and man in tmux (100×30 unless said). .ci/run installs
 * tmux, man-db and less.
 */

const ROOT = new URL('../../', import.meta.url);
const TOPICS = Object.keys(GUIDE_SOURCES);

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

it('every command\'s help, from the program, is what --help, -h and petctl help print from the pages the build captured (a bare petctl or group too), even in an install without dist/petctl.cjs; none names a path in the repository', async () => {
  const install = tempDir('petctl-help-only-');
  for (const file of ['bin/petctl.js', 'bin/package.json', 'dist/help.cjs', 'dist/help.json', 'package.json']) {
    fs.mkdirSync(path.join(install, path.dirname(file)), { recursive: true });
    fs.copyFileSync(new URL(file, ROOT), path.join(install, file));
  }
  const bin = path.join(install, 'bin', 'petctl.js');
  const run = (args: string[]) => spawnSync(NODE, [bin, ...args], { env: cleanEnv(), encoding: 'utf8', timeout: 20_000 });
  // Every command has a captured page: test/package/help-pages.test.ts.
  const captured = JSON.parse(fs.readFileSync(new URL('dist/help.json', ROOT), 'utf8')) as { pages: Record<string, string> };
  const commands = Object.keys(captured.pages).map((words) => (words === '' ? [] : words.split(' ')));
  expect(commands).toContainEqual(['pets', 'add']);
  expect(commands).toContainEqual(['profile', 'set']);
  const pages = new Map<string, string>();
  try {
    for (const words of commands) {
      // A global flag first: help the program prints, not a captured page.
      const program = await ok(runCli(['-q', ...words, '--help']));
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
    for (const group of ['pets', 'auth', 'profile', 'cache']) {
      expect(run([group])).toMatchObject({ status: 0, stdout: pages.get(group), stderr: '' });
      // A group without a command, from the program (a global flag), and a word after it.
      for (const args of [['-q', group], [group, '-q']]) {
        expect(await runCli(args)).toMatchObject({ code: 0, stdout: pages.get(group), stderr: '' });
      }
      expect(await runCli([group, 'xyzzy'])).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `error: unknown command 'xyzzy' (usage_error)\nhint: see petctl ${group} --help\n`,
      });
    }
    const list = run(['pets', 'list']);
    expect(list.status).toBe(1);
    expect(list.stderr).toMatch(/^error: petctl is not built/);
    expect(run(['help', 'rate-limits']).stderr).toMatch(/^error: petctl is not built/);
  } finally {
    fs.rmSync(install, { recursive: true, force: true });
  }
  const groups = ['pets', 'auth', 'profile', 'sandbox'];
  const flags = ['--profile', '--output', '--base-url', '--max-wait', '--no-color'];
  for (const text of [...groups, ...flags, 'Exit codes', ...TOPICS]) {
    expect(pages.get('')).toContain(text);
  }
  // --limit's words: test/commands/parsing.test.ts.
  expect(pages.get('pets list')).toMatch(/--status <status>[\s\S]*"available",\s+"pending",\s+"sold"[\s\S]*Examples:/);
  expect(pages.get('pets add')).toContain('petctl help bulk-import');
  expect(pages.get('sandbox')).toContain('petctl help sandbox');
  expect(await runCli(['help', 'adopt'])).toMatchObject({
    code: 2,
    stdout: '',
    stderr: `error: no command or guide named 'adopt' (usage_error)\nhint: guides: ${TOPICS.join(', ')}; commands: petctl --help\n`,
  });
}, 120_000);

describe('petctl help <topic>: the guides, from the same source as docs/', () => {
  it('petctl knows the topics the build makes a guide of, no more, no fewer', () => {
    expect([...GUIDE_TOPICS].sort()).toEqual([...TOPICS].sort());
  });

  it.each(TOPICS)('%s shows the words of its page, in order, with no Markdown left', async (topic) => {
    const result = await ok(runCli(['help', topic], { env: { COLUMNS: '2000' } }));
    expect(result.stderr).toBe('');
    const shown = words(result.stdout);
    expect(shown).toEqual(markdownWords(guideMarkdown(topic, ROOT)));
    expect(result.stdout).not.toMatch(/\]\(|```|^#{1,6} |(?<!\*)\*\*\w[^*]*\*\*(?!\*)/m);
  });

  it('piped, a guide is wrapped to $COLUMNS, else to 80 columns', async () => {
    // Code keeps its lines, and a word longer than a line stands alone.
    const overlong = (text: string, width: number) =>
      text.split('\n').filter((line) => !line.startsWith('    ') && line.length > width && /\s/.test(line.trim()));
    const narrow = await runCli(['help', 'bulk-import'], { env: { COLUMNS: '50' } });
    expect(overlong(narrow.stdout, 50)).toEqual([]);
    expect(narrow.stdout.split('\n').filter((line) => line.length > 40).length).toBeGreaterThan(100);
    const standard = await runCli(['help', 'bulk-import']);
    expect(overlong(standard.stdout, 80)).toEqual([]);
    expect(standard.stdout.split('\n').filter((line) => line.length > 70).length).toBeGreaterThan(50);
  });
});

const MAN_PAGES = fileURLToPath(new URL('../../dist/man/', import.meta.url));
const GUIDE_END = 'older records too).';

/** A pager that keeps its LESS, its words and what it was given, beside itself. */
function recordingPager(): { command: string; seen(): string[] | undefined; text(): string } {
  const script = path.join(tempDir('petctl-pager-'), 'pager');
  fs.writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "LESS=\${LESS-unset}" "$@" > "$0.seen"\ncat > "$0.text"\n`, { mode: 0o755 });
  return {
    command: script,
    seen: () => (fs.existsSync(`${script}.seen`) ? fs.readFileSync(`${script}.seen`, 'utf8').trimEnd().split('\n') : undefined),
    text: () => fs.readFileSync(`${script}.text`, 'utf8'),
  };
}

describe.concurrent('help in a terminal', () => {
  it("pets add --help is laid out for the pane's width, as the program lays it out", async (t) => {
    // Wide enough for commander to wrap the descriptions.
    const width = 72;
    const page = openTerminal(t, ['pets', 'add', '--help'], {}, { stdoutToTerminal: true, width });
    const program = openTerminal(t, ['-q', 'pets', 'add', '--help'], {}, { stdoutToTerminal: true, width });
    expect(await page.exitCode()).toBe(0);
    expect(await program.exitCode()).toBe(0);
    expect(page.text()).toBe(program.text());
    // Lines the terminal wrapped come back joined.
    const options = (text: string) => text.split('\nOptions:\n')[1]!.split('\n\n')[0]!.split('\n');
    expect(options(page.text()).filter((line) => line.length > width)).toEqual([]);
    expect(options((await runCli(['pets', 'add', '--help'])).stdout).filter((line) => line.length > width).length).toBeGreaterThan(5);
  });

  it("petctl help rate-limits is wrapped to the pane's width by petctl itself", async (t) => {
    const width = 64;
    const tty = openTerminal(t, ['help', 'rate-limits'], { PAGER: 'cat' }, { stdoutToTerminal: true, width });
    expect(await tty.exitCode()).toBe(0);
    const lines = tty.text().split('\n');
    expect(lines[0]).toBe('Rate limits: the waiting model');
    const prose = lines.filter((line) => !line.startsWith('    '));
    expect(prose.filter((line) => line.length > width)).toEqual([]);
    expect(prose.filter((line) => line.length > width - 12).length).toBeGreaterThan(20);
  });

  it('man petctl-pets-add opens in the pager, as a person reads it', async (t) => {
    // A man tree as `npm install -g` lays it out.
    const man = tempDir('petctl-man-');
    fs.mkdirSync(path.join(man, 'man1'));
    for (const page of fs.readdirSync(MAN_PAGES)) fs.symlinkSync(path.join(MAN_PAGES, page), path.join(man, 'man1', page));
    const env = { MANPATH: man, MANPAGER: 'less', LESS: '' };
    const tty = openTerminal(t, [], env, { stdoutToTerminal: true, command: ['man', 'petctl-pets-add'] });
    await tty.waitFor(/^PETCTL-PETS-ADD\(1\) +petctl manual +PETCTL-PETS-ADD\(1\)$/m);
    expect(tty.screen()).toContain('petctl-pets-add - add an animal');
    tty.press('q');
    expect(await tty.exitCode()).toBe(0);
  });
});

describe.concurrent('petctl help <topic> through a pager', () => {
  it("with PAGER and LESS unset, a long guide opens in less at its first screen; Ctrl-C is less's; q ends petctl with 0", async (t) => {
    const tty = openTerminal(t, ['help', 'bulk-import'], {}, { stdoutToTerminal: true });
    const screen = await tty.waitFor(/^:\s*$/m);
    expect(screen.split('\n')[0]).toBe('Bulk import: petctl pets add --file');
    expect(screen).not.toContain(GUIDE_END);
    tty.press('C-c');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(tty.screen()).toMatch(/^:\s*$/m);
    tty.press('q');
    expect(await tty.exitCode()).toBe(0);
    // LESS=FRX: the first screen stays on the terminal after less ends.
    expect(tty.text()).toContain('Bulk import: petctl pets add --file');
    expect(tty.text()).not.toMatch(/EPIPE|error|Error/);
  });

  it('PETCTL_PAGER wins over PAGER and runs with its words; it gets the whole guide, and LESS=FRX unless LESS is set', async (t) => {
    const pager = recordingPager();
    const piped = (await runCli(['help', 'bulk-import'], { env: { COLUMNS: '100' } })).stdout;
    const tty = openTerminal(t, ['help', 'bulk-import'], { PETCTL_PAGER: `${pager.command} --one two`, PAGER: 'cat' }, { stdoutToTerminal: true });
    expect(await tty.exitCode()).toBe(0);
    expect(pager.seen()).toEqual(['LESS=FRX', '--one', 'two']);
    expect(pager.text()).toBe(piped);

    const own = recordingPager();
    const withLess = openTerminal(t, ['help', 'sandbox'], { PAGER: own.command, LESS: '-R' }, { stdoutToTerminal: true });
    expect(await withLess.exitCode()).toBe(0);
    expect(own.seen()).toEqual(['LESS=-R']);
  });

  it.for<{ what: string; topic?: string; env: Record<string, string>; shown: string; whole?: boolean }>([
    { what: 'PETCTL_PAGER empty', env: { PETCTL_PAGER: '', PAGER: 'true' }, shown: GUIDE_END },
    { what: 'PETCTL_PAGER cat', env: { PETCTL_PAGER: 'cat', PAGER: 'true' }, shown: GUIDE_END },
    { what: 'PAGER cat', env: { PAGER: ' cat ' }, shown: GUIDE_END },
    { what: 'a guide that fits the terminal', topic: 'exit-codes', env: { PAGER: 'true' }, shown: 'interrupted by Ctrl-C' },
    { what: 'a pager not found', env: { PAGER: '/nonexistent/pager -R' }, shown: GUIDE_END },
    { what: "its shell's 127", env: { PAGER: "'no such pager'" }, shown: GUIDE_END },
    { what: 'head -n 1', env: { PAGER: 'head -n 1' }, shown: 'Bulk import: petctl pets add --file', whole: true },
    { what: 'true', env: { PAGER: 'true' }, shown: '', whole: true },
  ])('no pager, or one that cannot start, prints the guide as it is; one that quits early shows what it took: $what, exit 0, no EPIPE', async ({ topic, env, shown, whole }, t) => {
    const tty = openTerminal(t, ['help', topic ?? 'bulk-import'], env, { stdoutToTerminal: true });
    expect(await tty.exitCode()).toBe(0);
    const text = tty.text();
    if (whole) expect(text.trimEnd()).toBe(shown);
    else expect(text).toContain(shown);
    expect(text).not.toMatch(/EPIPE|ERR_|node:internal|^\s+at /m);
  });
});
