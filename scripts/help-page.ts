import { type Command, Help } from 'commander';

/** Help without the program (docs/performance.md): the build captures every command's help with each width-dependent
 * call of commander's Help left as a placeholder; bin/petctl.js makes those calls at the terminal's width.
 * scripts/help-pages.mjs bundles this module for the shim (dist/help.cjs) and writes dist/help.json with it. */

/** dist/help.json. */
interface HelpPages {
  /** A guide may share a command's name (sandbox): `petctl help <guide>` is the program's to answer. */
  guides: string[];
  /** By the command's words: '' for petctl itself, 'pets add'. */
  pages: Record<string, HelpPage>;
}

interface HelpPage {
  /** With PLACEHOLDER marks where a part goes. */
  text: string;
  parts: HelpPart[];
  /** A group of commands (pets, auth…): its words alone ask for its page, as a bare `petctl` does. */
  group?: true;
}

/** A description wrapped to the help's width, or an item: term, term column width, description. */
type HelpPart = [description: string] | [term: string, termWidth: number, description: string];

const PLACEHOLDER = /\0(\d+)\0/g;

export function captureHelpPages(program: Command, guides: string[]): HelpPages {
  const pages: Record<string, HelpPage> = {};
  const visit = (command: Command, words: string[][]): void => {
    const page: HelpPage = { text: '', parts: [], ...(command.commands.length > 0 ? { group: true as const } : {}) };
    const mark = (part: HelpPart): string => `\0${page.parts.push(part) - 1}\0`;
    command.configureHelp({
      formatItem: (term, termWidth, description) => mark([term, termWidth, description]),
      boxWrap: (description) => mark([description]),
    });
    command.configureOutput({ writeOut: (text) => void (page.text += text), getOutHasColors: () => false });
    command.outputHelp();
    for (const names of words) pages[names.join(' ')] = page;
    for (const sub of command.createHelp().visibleCommands(command)) {
      visit(sub, words.flatMap((names) => [sub.name(), ...sub.aliases()].map((name) => [...names, name])));
    }
  };
  visit(program, [[]]);
  return { guides, pages };
}

/** `width` undefined: commander's 80. Undefined when `args` ask for anything else, which the program then answers. */
export function helpPage(pages: HelpPages, args: readonly string[], width: number | undefined): string | undefined {
  const asked = helpWords(args, pages.guides);
  if (asked === undefined) return undefined;
  const page = pages.pages[asked.words];
  if (page === undefined || (asked.groupOnly && page.group !== true)) return undefined;
  const help = new Help();
  help.prepareContext({ helpWidth: width });
  return page.text.replace(PLACEHOLDER, (_mark, index: string) => {
    const part = page.parts[Number(index)]!;
    return part.length === 1 ? help.boxWrap(part[0], help.helpWidth!) : help.formatItem(part[0], part[1], part[2], help);
  });
}

/** `petctl`, `petctl <words…> --help|-h`, `petctl help [words…]` (not a guide): the words joined. Other words alone ask
 * for a page only when they name a group (`petctl pets`): `groupOnly`. */
function helpWords(args: readonly string[], guides: readonly string[]): { words: string; groupOnly: boolean } | undefined {
  const last = args.at(-1);
  const flag = last === '--help' || last === '-h';
  const words = flag ? args.slice(0, -1) : args[0] === 'help' ? args.slice(1) : args;
  if (args[0] === 'help' && words.length === 1 && guides.includes(words[0]!)) return undefined;
  if (!words.every((word) => /^[a-z][a-z-]*$/.test(word))) return undefined;
  return { words: words.join(' '), groupOnly: !flag && args[0] !== 'help' && args.length > 0 };
}
