import type { Context } from '../../context';
import { promptBaseUrl } from '../../input/prompts';
import { type ProfileOptions, notePasswordPlace, readStatePassword, warnIfPasswordInClear } from './state-store';

export async function profileAddRun(options: ProfileOptions, ctx: Context): Promise<void> {
  const { name, stateUrl } = options;
  const baseUrl = options.baseUrl ?? (await promptBaseUrl(ctx));
  const statePassword = options.statePasswordStdin ? await readStatePassword(ctx, name, stateUrl) : undefined;
  const store = await ctx.profiles();
  const added = await store.add(name, baseUrl, { stateUrl, statePassword }, { useIfFirst: true });
  notePasswordPlace(ctx, added.password, store.path);
  if (stateUrl !== undefined) await warnIfPasswordInClear(ctx, stateUrl, statePassword !== undefined);
  ctx.notice(
    added.nowActive
      ? `Profile "${name}" added and now in use (petctl profile use sandbox to go back)`
      : `Profile "${name}" added. Store its key with: petctl auth login -p ${name}`,
  );
}
