import type { Command } from 'commander';
import type { Context } from '../../context';
import type { Invoke } from '../root';
import { readKey } from './read-key';

export interface LoginOptions {
  withToken: boolean;
}

export function registerLogin(auth: Command, invoke: Invoke): void {
  auth
    .command('login')
    .description('store an API key in the profile (hidden prompt on a terminal)')
    .option('--with-token', 'read the key from standard input (also when stdin is not a terminal)')
    .addHelpText(
      'after',
      `
Examples:
  $ petctl auth login                              # prompts, echoing nothing
  $ petctl auth login -p staging --with-token < key.txt
  $ printf %s "$PET_KEY" | petctl auth login --with-token

The key is never a flag (it would land in shell history and ps output).`,
    )
    .action((options: { withToken?: boolean }) => invoke((ctx) => loginRun({ withToken: options.withToken === true }, ctx)));
}

export async function loginRun(options: LoginOptions, ctx: Context): Promise<void> {
  const [store, { resolveProfileName }] = await Promise.all([ctx.profiles(), import('../../config/target')]);
  const { name } = resolveProfileName(store, { profileFlag: ctx.globals.profile, env: ctx.env });
  const key = await readKey(ctx, name, options.withToken);
  await store.setKey(name, key);
  ctx.notice(`API key stored for profile "${name}". Check it with: petctl auth status${ctx.globals.profile ? ` -p ${name}` : ''}`);
  if (ctx.env.PETCTL_API_KEY) ctx.warn('PETCTL_API_KEY is set and overrides the stored key until you unset it');
}
