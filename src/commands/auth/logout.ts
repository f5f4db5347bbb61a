import type { Command } from 'commander';
import type { Context } from '../../context';
import type { Invoke } from '../types';

export function registerLogout(auth: Command, invoke: Invoke): void {
  auth
    .command('logout')
    .description("remove the profile's stored API key, from the keychain or config.json")
    .addHelpText('after', '\nExample:\n  $ petctl auth logout -p staging')
    .action(() => invoke((ctx) => logoutRun(ctx)));
}

export async function logoutRun(ctx: Context): Promise<void> {
  const [store, { resolveProfileName }] = await Promise.all([ctx.profiles(), import('../../config/target')]);
  const { name } = resolveProfileName(store, { profileFlag: ctx.globals.profile, env: ctx.env });
  const removed = await store.clearKey(name);
  const from = removed === 'keychain' ? ' and from the keychain' : '';
  ctx.notice(removed ? `API key removed from profile "${name}"${from}.` : `Profile "${name}" has no stored API key.`);
  if (ctx.env.PETCTL_API_KEY) ctx.warn('PETCTL_API_KEY is still set and is used as the API key until you unset it');
}
