import { Argument, type Command } from 'commander';
import type { Context } from '../context';
import { SHELLS, type Shell, completionScript } from '../completion/scripts';
import { GUIDE_TOPICS } from './help';
import type { Invoke } from './types';

export interface CompletionOptions {
  shell: Shell;
}

export interface CompleteOptions {
  /** The words after `petctl`; the last is the one being completed ('' after a space). */
  words: string[];
  /** The whole command tree, walked at completion time so every registered command and flag completes. */
  program: Command;
}

/**
 * `petctl completion <shell>` prints the script; the hidden `petctl __complete
 * -- <words...>` is what that script runs on each TAB (as gh and wrangler do).
 * The `--` keeps commander from reading the typed flags as this command's own.
 */
export function registerCompletion(program: Command, invoke: Invoke): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      `
The script completes commands, flags, --status/--output values, the guides
and commands after help, and profile names (read from the config on each TAB,
so new profiles complete at once).

Install:
  bash  $ echo 'source <(petctl completion bash)' >> ~/.bashrc
  zsh   $ petctl completion zsh > "\${fpath[1]}/_petctl"     # then open a new shell
  fish  $ petctl completion fish > ~/.config/fish/completions/petctl.fish

Exit codes: 0 ok, 2 unknown or missing shell.`,
    )
    .action((shell: Shell) => invoke((ctx) => completionRun({ shell }, ctx)));

  program
    .command('__complete', { hidden: true })
    .description('print the completions for a partly typed command line (used by the completion scripts)')
    .argument('[words...]', 'the words after petctl')
    .action((words: string[]) => invoke((ctx) => completeRun({ words, program }, ctx)));
}

// The scripts are a few constant strings, not worth a lazy import.
export async function completionRun(options: CompletionOptions, ctx: Context): Promise<void> {
  ctx.io.stdout.write(completionScript(options.shell));
}

export async function completeRun(options: CompleteOptions, ctx: Context): Promise<void> {
  const { completeWords, renderCompletion } = await import('../completion/complete');
  const completion = await completeWords(options.program, options.words, { profileNames: () => profileNames(ctx), guideTopics: GUIDE_TOPICS });
  ctx.io.stdout.write(renderCompletion(completion));
}

/** The config's profile names (the built-in sandbox first). A damaged config still offers the sandbox; TAB never prints errors. */
async function profileNames(ctx: Context): Promise<string[]> {
  try {
    const store = await ctx.profiles();
    // A hand-edited name with white space would break the one-candidate-per-line answer.
    return store.list().map((profile) => profile.name).filter((name) => /^[^\s:]\S*$/.test(name));
  } catch {
    const { SANDBOX_PROFILE } = await import('../config/profiles');
    return [SANDBOX_PROFILE];
  }
}
