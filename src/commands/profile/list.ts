import { maskKey } from '../../config/target';
import { maskStateUrl } from '../../config/state-url';
import type { Context } from '../../context';
import { renderOptions, renderRecords, writeResult } from '../../output/records';
import { SANDBOX_URL_TEXT } from '../../output/profile';

export async function profileListRun(ctx: Context): Promise<void> {
  const store = await ctx.profiles();
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
    // One without a base URL that is not the sandbox was written by hand: it goes nowhere, not to the sandbox.
    { key: 'baseUrl', header: 'BASE URL', value: (row: Row) => row.baseUrl ?? (row.builtIn ? SANDBOX_URL_TEXT : 'none') },
    { key: 'key', header: 'KEY', value: (row: Row) => row.key ?? (row.builtIn ? 'built-in' : 'none') },
    ...(shared ? [{ key: 'stateUrl', header: 'STATE STORE', value: (row: Row) => row.stateUrl ?? 'local' }] : []),
  ];
  await writeResult(ctx, rows, () => renderRecords(columns, rows, ctx.globals.output, renderOptions(ctx)));
}
