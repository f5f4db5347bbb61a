import type { Context } from '../../context';

export async function profileUseRun(options: { name: string }, ctx: Context): Promise<void> {
  const store = await ctx.profiles();
  await store.use(options.name);
  ctx.notice(`Active profile: ${options.name}`);
  if (ctx.env.PETCTL_PROFILE && ctx.env.PETCTL_PROFILE !== options.name) {
    ctx.warn(`PETCTL_PROFILE=${ctx.env.PETCTL_PROFILE} is set and takes precedence while it is`);
  }
}
