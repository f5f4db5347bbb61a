import { Argument, type Command } from 'commander';
import { completesWith } from '../../completion/values';
import type { Context } from '../../context';
import type { Invoke } from '../root';

export function registerProfileRemove(profile: Command, invoke: Invoke): void {
  profile
    .command('remove')
    .description('remove a profile and its stored key')
    .addArgument(completesWith(new Argument('<name>', 'profile name'), 'profiles'))
    .addHelpText('after', '\nExamples:\n  $ petctl profile remove staging\n  $ petctl profile set staging --base-url https://staging.example.org/v1   # keeps the key instead')
    .action((name: string) => invoke((ctx) => profileRemoveRun({ name }, ctx)));
}

export async function profileRemoveRun(options: { name: string }, ctx: Context): Promise<void> {
  const store = await ctx.profiles();
  const wasActive = store.activeName() === options.name;
  await store.remove(options.name);
  const next = store.activeName();
  const after = next === undefined ? ' No profile is chosen now: choose one with petctl profile use <name>.' : ` The active profile is now "${next}".`;
  ctx.notice(`Profile "${options.name}" removed.${wasActive ? after : ''}`);
}
