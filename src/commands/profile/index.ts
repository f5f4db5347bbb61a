import { Argument, type Command } from 'commander';
import { completesWith } from '../../completion/values';
import type { Context } from '../../context';
import { writeResult } from '../../output/result';
import type { Invoke } from '../root';

/**
 * profile list | show [name] | add <name> --base-url <url> [--state-url <url>] | use <name> | remove <name>.
 * Each leaf is small, so the group lives in one file; each has its own run function.
 */
export function registerProfile(program: Command, invoke: Invoke): void {
  const profile = program.command('profile').helpCommand(false).description('manage profiles: one base URL and one API key each');

  profile
    .command('list')
    .description('list profiles; * marks the active one')
    .addHelpText('after', "\nExamples:\n  $ petctl profile list\n  $ petctl profile list -o json\n  $ petctl profile list --query '[?active].name | [0]'")
    .action(() => invoke((ctx) => profileListRun(ctx), { jsonResult: true }));

  profile
    .command('show')
    .description('show a profile (default: the one in use) and what overrides it')
    .addArgument(completesWith(new Argument('[name]', 'profile name'), 'profiles'))
    .addHelpText('after', '\nExamples:\n  $ petctl profile show\n  $ petctl profile show production -o json\n  $ petctl profile show production --query effectiveBaseUrl')
    .action((name: string | undefined) => invoke((ctx) => profileShowRun({ name }, ctx), { jsonResult: true }));

  profile
    .command('add')
    .description('add a profile')
    .argument('<name>', 'profile name: letters, digits, ".", "_" and "-"')
    // Declared for the help text only: the global --base-url (root.ts) has the same name, and
    // commander gives a program's option precedence wherever it stands on the line, so the
    // value always arrives in the global options (not from PETCTL_BASE_URL: that is not a flag).
    .option('--base-url <url>', 'https://…/v1 (http only for loopback); asked for on a terminal when missing')
    .option('--state-url <url>', 'share the key\'s rate-limit state with other machines through Redis: redis://[:password@]host:6379/0 or rediss://… (env PETCTL_STATE_URL)')
    .addHelpText(
      'after',
      `
The state URL's password is stored like the key (config.json, mode 0600) and never printed.
If the Redis server cannot be reached, petctl warns and uses this machine's state file.

Examples:
  $ petctl profile add production --base-url https://api.example.org/v1
  $ petctl profile add staging --base-url https://staging.example.org/v1
  $ petctl auth login -p staging
  $ petctl profile add staging          # on a terminal: asks for the base URL
  $ petctl profile add shelters --base-url https://api.example.org/v1 --state-url redis://limits.internal:6379/0
  $ petctl profile add shared --base-url https://api.example.org/v1 --state-url 'rediss://:s3cret@redis.example.org:6380/0'`,
    )
    .action((name: string, flags: { stateUrl?: string }) =>
      invoke((ctx) => profileAddRun({ name, baseUrl: ctx.globals.baseUrl, stateUrl: flags.stateUrl }, ctx)),
    );

  profile
    .command('use')
    .description('make a profile the active one')
    .addArgument(completesWith(new Argument('<name>', 'profile name'), 'profiles'))
    .action((name: string) => invoke((ctx) => profileUseRun({ name }, ctx)));

  profile
    .command('remove')
    .description('remove a profile and its stored key')
    .addArgument(completesWith(new Argument('<name>', 'profile name'), 'profiles'))
    .action((name: string) => invoke((ctx) => profileRemoveRun({ name }, ctx)));
}

const SANDBOX_URL_TEXT = 'embedded sandbox (in-process)';

export async function profileListRun(ctx: Context): Promise<void> {
  const [store, { maskKey }, { maskStateUrl }, { renderRecords }, { renderOptions }] = await Promise.all([
    ctx.profiles(),
    import('../../config/credentials'),
    import('../../config/state-url'),
    import('../../output/records'),
    import('../../output/settings'),
  ]);
  const active = store.activeName();
  const profiles = store.list();
  // Only when some profile shares its state: most setups never do, and their output stays as it was.
  const shared = profiles.some((profile) => profile.stateUrl);
  const rows = profiles.map((profile) => ({
    name: profile.name,
    active: profile.name === active,
    baseUrl: profile.baseUrl ?? null,
    builtIn: profile.builtIn,
    key: profile.apiKey ? maskKey(profile.apiKey) : null,
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

export async function profileShowRun(options: { name?: string }, ctx: Context): Promise<void> {
  const [store, { maskKey, resolveTarget }, { maskStateUrl }, { renderDetails }, { unknownProfile }] = await Promise.all([
    ctx.profiles(),
    import('../../config/credentials'),
    import('../../config/state-url'),
    import('../../output/details'),
    import('../../config/profiles'),
  ]);
  if (options.name !== undefined && store.get(options.name) === undefined) throw unknownProfile(options.name, store.list().map((profile) => profile.name));
  const target = resolveTarget(store, { profileFlag: options.name ?? ctx.globals.profile, baseUrlFlag: ctx.globals.baseUrl, env: ctx.env });
  const stored = store.get(target.profile);
  const overrides = [
    ...(ctx.env.PETCTL_API_KEY ? ['PETCTL_API_KEY overrides the stored key'] : []),
    ...(target.baseUrlSource === 'env' ? ['PETCTL_BASE_URL overrides the base URL'] : []),
    ...(target.baseUrlSource === 'flag' ? ['--base-url overrides the base URL'] : []),
    ...(target.stateUrlSource === 'env' ? ['PETCTL_STATE_URL overrides the state store'] : []),
  ];
  const object = {
    name: target.profile,
    active: target.profile === store.activeName(),
    builtIn: stored?.builtIn ?? false,
    baseUrl: stored?.baseUrl ?? null,
    effectiveBaseUrl: target.baseUrl ?? null,
    storedKey: stored?.apiKey ? maskKey(stored.apiKey) : null,
    effectiveKey: target.apiKey ? maskKey(target.apiKey) : null,
    keySource: target.keySource ?? null,
    // Only when a state store is in use, so that output without one stays as it was.
    ...(target.stateUrl ? { stateUrl: maskStateUrl(target.stateUrl), stateUrlSource: target.stateUrlSource ?? null } : {}),
    overrides,
  };
  await writeResult(ctx, object, () =>
    renderDetails(
      [
        { key: 'name', label: 'Profile', text: `${object.name}${object.active ? ' (active)' : ''}` },
        { key: 'baseUrl', label: 'Base URL', text: target.baseUrl ?? SANDBOX_URL_TEXT },
        { key: 'storedKey', label: 'Stored key', text: object.storedKey ?? (object.builtIn ? 'none (uses the built-in sandbox key)' : 'none: run petctl auth login') },
        { key: 'effectiveKey', label: 'Key in use', text: object.effectiveKey ? `${object.effectiveKey} (${object.keySource})` : 'none' },
        ...(object.stateUrl ? [{ key: 'stateUrl', label: 'State store', text: `${object.stateUrl} (${object.stateUrlSource})` }] : []),
        { key: 'overrides', label: 'Overrides', text: overrides.length ? overrides.join('; ') : 'none' },
      ],
      object,
      ctx.globals.output,
    ),
  );
}

export async function profileAddRun(options: { name: string; baseUrl?: string; stateUrl?: string }, ctx: Context): Promise<void> {
  const baseUrl = options.baseUrl ?? (await (await import('../../input/prompts')).promptBaseUrl(ctx));
  const store = await ctx.profiles();
  await store.add(options.name, baseUrl, options.stateUrl);
  if (options.stateUrl !== undefined) {
    const [{ isLoopbackHost }, { stateStoreAddress }] = await Promise.all([import('../../config/base-url'), import('../../config/state-url')]);
    const address = stateStoreAddress(options.stateUrl);
    if (address.password !== undefined && !address.tls && !isLoopbackHost(address.host)) {
      ctx.warn('redis:// sends the state store\'s password unencrypted; prefer rediss:// beyond a trusted network');
    }
  }
  ctx.notice(`Profile "${options.name}" added. Store its key with: petctl auth login -p ${options.name}`);
}

export async function profileUseRun(options: { name: string }, ctx: Context): Promise<void> {
  const store = await ctx.profiles();
  await store.use(options.name);
  ctx.notice(`Active profile: ${options.name}`);
  if (ctx.env.PETCTL_PROFILE && ctx.env.PETCTL_PROFILE !== options.name) {
    ctx.warn(`PETCTL_PROFILE=${ctx.env.PETCTL_PROFILE} is set and takes precedence while it is`);
  }
}

export async function profileRemoveRun(options: { name: string }, ctx: Context): Promise<void> {
  const store = await ctx.profiles();
  const wasActive = store.activeName() === options.name;
  await store.remove(options.name);
  ctx.notice(`Profile "${options.name}" removed.${wasActive ? ' The active profile is now "sandbox".' : ''}`);
}
