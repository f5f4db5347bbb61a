import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/commands/root';
import { GUIDE_TOPICS } from '../../src/commands/help';
import { captureHelpPages, helpPage } from '../../scripts/help-page';

/** The shim's help pages are commander's own: for every command, at every width, the page laid out is the page commander prints. */

const noRun = async (): Promise<void> => {};
const pages = captureHelpPages(buildProgram(noRun, { writeOut: () => {} }), [...GUIDE_TOPICS]);

/** What the program prints for `<words> --help` with stdout `width` columns wide (undefined: not a terminal). */
function programHelp(words: string[], width: number | undefined): string {
  let text = '';
  const program = buildProgram(noRun, { writeOut: (chunk) => void (text += chunk) });
  let command: Command = program;
  for (const word of words) command = command.commands.find((sub) => sub.name() === word)!;
  // Commander asks stdout for its width and gets undefined off a terminal (its types say number).
  command.configureOutput({ getOutHelpWidth: () => width as number, getOutHasColors: () => false });
  command.outputHelp();
  return text;
}

const WIDTHS = [undefined, 0, 1, 20, 39, 40, 41, 50, 64, 79, 80, 81, 100, 132, 200, 1000];

describe('help pages', () => {
  it('every command has a page, and at every width it is the page commander prints', () => {
    const commands = Object.keys(pages.pages);
    expect(commands).toEqual(expect.arrayContaining(['', 'pets', 'pets add', 'profile set', 'auth login', 'help', 'version']));
    for (const words of commands) {
      const list = words === '' ? [] : words.split(' ');
      for (const width of WIDTHS) expect({ words, width, page: helpPage(pages, [...list, '--help'], width) }).toEqual({ words, width, page: programHelp(list, width) });
    }
  });

  it('pages are for what asks for help: a bare petctl or group, --help or -h after words, help [command…]', () => {
    const root = programHelp([], undefined);
    expect(helpPage(pages, [], undefined)).toBe(root);
    expect(helpPage(pages, ['-h'], undefined)).toBe(root);
    expect(helpPage(pages, ['help'], undefined)).toBe(root);
    expect(helpPage(pages, ['help', 'pets', 'add'], 70)).toBe(programHelp(['pets', 'add'], 70));
    expect(helpPage(pages, ['pets', 'list', '-h'], 70)).toBe(programHelp(['pets', 'list'], 70));
    expect(helpPage(pages, ['help', '--help'], undefined)).toBe(programHelp(['help'], undefined));
    // A group's words alone ask for its page; `petctl help` alone is the root's.
    const groups = Object.keys(pages.pages).filter((words) => words !== 'help' && helpPage(pages, words.split(' '), 70) !== undefined);
    expect(groups.sort()).toEqual(['auth', 'cache', 'pets', 'profile']);
    for (const group of groups) expect(helpPage(pages, [group], 70)).toBe(programHelp([group], 70));
  });

  it('anything else is left to the program: guides, unknown commands, other flags and words', () => {
    for (const args of [
      ['help', 'sandbox'],
      ['help', 'rate-limits'],
      ['help', 'nope'],
      ['nope', '--help'],
      ['pets', 'lst', '--help'],
      ['-q', '--help'],
      ['pets', '--json', '--help'],
      ['pets', 'get', '12', '--help'],
      ['--help', 'pets'],
      ['pets', 'list'],
      ['pets', 'bogus'],
      ['sandbox'],
      ['api'],
      ['--version'],
    ]) {
      expect({ args, page: helpPage(pages, args, undefined) }).toEqual({ args, page: undefined });
    }
  });
});
