import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/imports';
import { buildProgram } from '../../src/commands/root';

/** The man pages the build makes, one per command --help describes, each rendered with `man -l` (.ci/run installs man-db). */

const MAN = path.join(ROOT, 'dist', 'man');
const program = buildProgram(async () => {}, { writeOut: () => {} });

function visible(command: Command): Command[] {
  const subs = command.createHelp().visibleCommands(command);
  return [command, ...subs.flatMap(visible)];
}

function pageName(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  return names.join('-');
}

const commands = visible(program);
const render = (page: string) =>
  execFileSync('man', ['-l', path.join(MAN, `${page}.1`)], { encoding: 'utf8', env: { PATH: process.env.PATH, MANPAGER: 'cat', MANWIDTH: '100', LANG: 'C.UTF-8' } });

describe('man pages', () => {
  it("one page per visible command, package.json lists exactly those, a page carries its command's examples", () => {
    const expected = commands.map((command) => `${pageName(command)}.1`).sort();
    expect(expected).not.toContain('petctl-__complete.1');
    expect(fs.readdirSync(MAN).sort()).toEqual(expected);
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { man?: string[]; files?: string[] };
    expect([...(manifest.man ?? [])].sort()).toEqual(expected.map((page) => `dist/man/${page}`));
    expect(manifest.files).toContain('dist/man/');
    expect(render('petctl-pets-add')).toContain('$ petctl pets add --name Rex --category-id 1');
    expect(render('petctl')).toContain('Exit codes: 0 ok, 1 unexpected, 2 usage');
  });

  it.each(commands.map((command) => [pageName(command), command] as const))('%s renders with man -l and names every flag of its command, as --help does', (page, command) => {
    const text = render(page);
    expect(text).toMatch(new RegExp(`^${page.toUpperCase()}\\(1\\)`, 'm'));
    expect(text.replace(/\s+/g, ' ')).toContain(`${page} - ${command.description()}`);
    const flags = command.createHelp().visibleOptions(command).flatMap((option) => [option.short, option.long].filter((flag): flag is string => flag !== undefined));
    if (command !== program && command.commands.length === 0) expect(flags.length).toBeGreaterThan(0);
    // Hyphens stay ASCII and unbroken: a flag copied from the page works.
    for (const flag of flags) expect(text).toMatch(new RegExp(`(^|[\\s,\\[])${flag}\\b`, 'm'));
    for (const sub of command.commands.filter((sub) => !sub.name().startsWith('__'))) expect(text).toContain(`${pageName(sub)}(1)`);
  });
});
