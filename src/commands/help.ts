import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Argument, type Command } from 'commander';
import { completesWith } from '../completion/values';
import type { Context } from '../context';
import { UsageError } from '../errors';
import type { GuideBlock } from '../output/guide';
import { VERSION } from '../version';
import type { HelpOutput, Invoke } from './types';

/** The guides `petctl help <topic>` prints; scripts/guides.mjs names the page each is made from. */
export const GUIDE_TOPICS = ['bulk-import', 'rate-limits', 'configuration', 'output', 'sandbox', 'shared-state', 'exit-codes'] as const;

export const GUIDES_HELP = `Guides (petctl help <topic>):\n  ${GUIDE_TOPICS.join(', ')}`;

/** `petctl help [command…|topic]` and `petctl version`, where people look besides --help and --version. */
export function registerHelp(program: Command, invoke: Invoke, output: HelpOutput): void {
  program
    .command('help')
    .addArgument(completesWith(new Argument('[command-or-topic...]', 'a command (pets add) or a guide (rate-limits)'), 'help-topics'))
    .description('show help for a command, or a guide')
    .addHelpText(
      'after',
      `\nExamples:\n  $ petctl help pets add\n  $ petctl help rate-limits\n\n${GUIDES_HELP}\n\nOn a terminal, a guide longer than the screen opens in $PETCTL_PAGER, else\n$PAGER, else less -R (empty or cat: no pager).`,
    )
    .action((words: string[]) => {
      // A guide first: `sandbox` is a guide and a command, and the command's help is also `petctl sandbox --help`.
      const [topic] = words;
      if (words.length === 1 && (GUIDE_TOPICS as readonly string[]).includes(topic!)) return invoke((ctx) => printGuide(topic!, ctx));
      const command = findCommand(program, words);
      if (command !== undefined) return command.outputHelp();
      throw new UsageError(`no command or guide named '${words.join(' ')}'`, `guides: ${GUIDE_TOPICS.join(', ')}; commands: petctl --help`);
    });

  program
    .command('version')
    .description('print the version, as --version does')
    .action(() => output.writeOut(`${VERSION}\n`));
}

/** The command the words name, walking down from the program; none when a word names no subcommand. */
function findCommand(program: Command, words: string[]): Command | undefined {
  let command = program;
  for (const word of words) {
    const sub = command.commands.find((candidate) => candidate.name() === word || candidate.aliases().includes(word));
    if (sub === undefined) return undefined;
    command = sub;
  }
  return command;
}

async function printGuide(topic: string, ctx: Context): Promise<void> {
  const { renderGuide } = await import('../output/guide');
  // The build writes each guide beside the bundle (dist/guides/), read only when asked for.
  const blocks = JSON.parse(readFileSync(path.join(__dirname, 'guides', `${topic}.json`), 'utf8')) as GuideBlock[];
  const text = renderGuide(blocks, terminalWidth(ctx));
  // The pager's module (and node:child_process) only for a terminal.
  if (!ctx.terminal.stdoutIsTerminal) return void ctx.io.stdout.write(text);
  const { writePaged } = await import('../output/pager');
  await writePaged(text, ctx);
}

/** The terminal's width; off a terminal $COLUMNS, else 80, as man does. */
function terminalWidth(ctx: Context): number {
  const width = ctx.terminal.stdoutWidth();
  if (width !== undefined) return width;
  const columns = Number(ctx.env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : 80;
}
