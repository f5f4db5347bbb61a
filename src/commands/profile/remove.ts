import { Argument, type Command } from 'commander';
import { completesWith } from '../../completion/values';
import type { Context } from '../../context';
import type { Invoke } from '../types';

export interface ProfileRemoveOptions {
  name: string;
  /** --yes: remove a profile holding a key without asking. */
  yes: boolean;
}

export function registerProfileRemove(profile: Command, invoke: Invoke): void {
  profile
    .command('remove')
    .description('remove a profile and its stored key (asks first when it holds a key)')
    .addArgument(completesWith(new Argument('<name>', 'profile name'), 'profiles'))
    .option('--yes', 'remove a profile that holds a key without asking (needed off a terminal)')
    .addHelpText(
      'after',
      `
Examples:
  $ petctl profile remove staging          # holding a key: asks "Remove …? (y/N)"
  $ petctl profile remove staging --yes    # in a script: no question
  $ petctl profile set staging --base-url https://staging.example.org/v1   # keeps the key instead

A profile that holds a key is removed only after a "y" on a terminal, or with
--yes. Answering no (or Enter) keeps it and exits 2 (cancelled); with no
terminal to ask on, or --no-input, it keeps it and exits 2 (confirmation_required).`,
    )
    .action((name: string, options: { yes?: boolean }) => invoke((ctx) => profileRemoveRun({ name, yes: options.yes === true }, ctx)));
}

export async function profileRemoveRun(options: ProfileRemoveOptions, ctx: Context): Promise<void> {
  const store = await ctx.profiles();
  const stored = store.get(options.name);
  if (stored && !stored.builtIn && stored.apiKey !== undefined) {
    const [{ confirmOrStop }, { maskKey }] = await Promise.all([import('../../input/prompts'), import('../../config/target')]);
    await confirmOrStop(ctx, {
      question: `Remove profile "${options.name}" and its API key ${typeof stored.apiKey === 'string' ? maskKey(stored.apiKey) : '(in the keychain)'}?`,
      yes: options.yes,
      action: `removing profile "${options.name}" and its API key`,
      kept: `profile "${options.name}" and its key are kept`,
      withYes: `petctl profile remove ${options.name} --yes`,
    });
  }
  const wasActive = store.activeName() === options.name;
  await store.remove(options.name);
  const next = store.activeName();
  const after = next === undefined ? ' No profile is chosen now: choose one with petctl profile use <name>.' : ` The active profile is now "${next}".`;
  ctx.notice(`Profile "${options.name}" removed.${wasActive ? after : ''}`);
}
