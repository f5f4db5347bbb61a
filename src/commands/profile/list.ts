import type { Command } from 'commander';
import type { Context } from '../../context';
import { writeResult } from '../../output/result';
import type { Invoke } from '../types';

export function registerProfileList(profile: Command, invoke: Invoke): void {
  profile
    .command('list')
    .description('list profiles; * marks the active one')
    .addHelpText('after', "\nExamples:\n  $ petctl profile list\n  $ petctl profile list -o json\n  $ petctl profile list --query '[?active].name | [0]'")
    .action(() => invoke((ctx) => profileListRun(ctx), { jsonResult: true }));
}

export async function profileListRun(ctx: Context): Promise<void> {
  const [store, { maskKey }, { maskStateUrl }, { renderRecords }, { renderOptions }, { SANDBOX_URL_TEXT }] = await Promise.all([
    ctx.profiles(),
    import('../../config/target'),
    import('../../config/state-url'),
    import('../../output/records'),
    import('../../output/settings'),
    import('../../output/profile'),
  ]);
  const active = store.activeName();
  const profiles = store.list();
  // Only when some profile shares its state: most setups never do, and need no such column.
  const shared = profiles.some((profile) => profile.stateUrl);
  const rows = profiles.map((profile) => ({
    name: profile.name,
    active: profile.name === active,
    baseUrl: profile.baseUrl ?? null,
    builtIn: profile.builtIn,
    key: profile.apiKey === undefined ? null : typeof profile.apiKey === 'string' ? maskKey(profile.apiKey) : '(keychain)',
    ...(shared ? { stateUrl: profile.stateUrl ? maskStateUrl(profile.stateUrl) : null } : {}),
  }));
  type Row = (typeof rows)[number];
  const columns = [
    { key: 'active', header: '', value: (row: Row) => (row.active ? '*' : '') },
    { key: 'name', header: 'NAME', value: (row: Row) => row.name },
    { key: 'baseUrl', header: 'BASE URL', value: (row: Row) => row.baseUrl ?? SANDBOX_URL_TEXT },
    { key: 'key', header: 'KEY', value: (row: Row) => row.key ?? (row.builtIn ? 'built-in' : 'none') },
    ...(shared ? [{ key: 'stateUrl', header: 'STATE STORE', value: (row: Row) => row.stateUrl ?? 'local' }] : []),
  ];
  await writeResult(ctx, rows, () => renderRecords(columns, rows, ctx.globals.output, renderOptions(ctx)));
}
