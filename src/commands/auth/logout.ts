import type { Context } from '../../context';
import { resolveProfileName } from '../../config/target';

export async function logoutRun(ctx: Context): Promise<void> {
  const store = await ctx.profiles();
  const { name } = resolveProfileName(store, { profileFlag: ctx.globals.profile, env: ctx.env });
  const removed = await store.clearKey(name);
  const from = removed === 'keychain' ? ' and from the keychain' : '';
  ctx.notice(removed ? `API key removed from profile "${name}"${from}.` : `Profile "${name}" has no stored API key.`);
  if (ctx.env.PETCTL_API_KEY) ctx.warn('PETCTL_API_KEY is still set and is used as the API key until you unset it');
}
