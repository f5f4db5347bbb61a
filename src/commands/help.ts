import { Argument, type Command } from 'commander';
import { completesWith, findCommand } from '../completion/complete';
import { UsageError } from '../errors';
import { VERSION } from '../version';
import type { Invoke } from './types';

/** The guides `petctl help <topic>` prints; scripts/guides.mjs names the page each is made from. */
export const GUIDE_TOPICS = ['bulk-import', 'rate-limits', 'configuration', 'output', 'sandbox', 'shared-state', 'exit-codes'] as const;

export const GUIDES_HELP = `Guides (petctl help <topic>):\n  ${GUIDE_TOPICS.join(', ')}`;

/** `petctl help [command…|topic]` and `petctl version`, where people look besides --help and --version. */
export function registerHelp(program: Command, invoke: Invoke): void {
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
      if (words.length === 1 && (GUIDE_TOPICS as readonly string[]).includes(topic!)) return invoke(async (ctx) => (await import('./guide')).guideRun(topic!, ctx));
      const command = findCommand(program, words);
      if (command !== undefined) return command.outputHelp();
      throw new UsageError(`no command or guide named '${words.join(' ')}'`, `guides: ${GUIDE_TOPICS.join(', ')}; commands: petctl --help`);
    });

  program
    .command('version')
    .description('print the version, as --version does')
    .action(() => program.configureOutput().writeOut!(`${VERSION}\n`));
}
