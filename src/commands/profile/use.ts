import { Argument, type Command } from 'commander';
import { completesWith } from '../../completion/values';
import type { Context } from '../../context';
import type { Invoke } from '../types';

export function registerProfileUse(profile: Command, invoke: Invoke): void {
  profile
    .command('use')
    .description('make a profile the active one')
    .addArgument(completesWith(new Argument('<name>', 'profile name'), 'profiles'))
    .addHelpText('after', '\nExamples:\n  $ petctl profile use production\n  $ petctl -p staging pets list      # one command only')
    .action((name: string) => invoke((ctx) => profileUseRun({ name }, ctx)));
}

export async function profileUseRun(options: { name: string }, ctx: Context): Promise<void> {
  const store = await ctx.profiles();
  await store.use(options.name);
  ctx.notice(`Active profile: ${options.name}`);
  if (ctx.env.PETCTL_PROFILE && ctx.env.PETCTL_PROFILE !== options.name) {
    ctx.warn(`PETCTL_PROFILE=${ctx.env.PETCTL_PROFILE} is set and takes precedence while it is`);
  }
}
