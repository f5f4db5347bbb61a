import { maskKey } from '../../config/target';
import type { Context } from '../../context';
import { confirmOrStop } from '../../input/prompts';

/** --yes: remove a profile holding a key without asking. */
export async function profileRemoveRun(options: { name: string; yes: boolean }, ctx: Context): Promise<void> {
  const store = await ctx.profiles();
  const stored = store.get(options.name);
  if (stored && !stored.builtIn && stored.apiKey !== undefined) {
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
