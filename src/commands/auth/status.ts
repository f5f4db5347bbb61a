import type { Command } from 'commander';
import type { Context } from '../../context';
import { writeResult } from '../../output/result';
import type { Invoke } from '../root';

export function registerStatus(auth: Command, invoke: Invoke): void {
  auth
    .command('status')
    .description('check the API key with GET /pets?limit=1 and show the profile, masked key and rate limit')
    .addHelpText('after', '\nExamples:\n  $ petctl auth status\n  $ petctl auth status -p production -o json\n  $ petctl auth status --query rateLimit.remaining')
    .action(() => invoke((ctx) => statusRun(ctx), { jsonResult: true }));
}

const SOURCE_LABELS: Record<string, string> = {
  flag: 'from a flag',
  env: 'from the environment',
  active: 'active profile',
  profile: 'from the profile',
  sandbox: 'embedded sandbox, in this process',
  'sandbox-default': 'built-in sandbox key',
};

export async function statusRun(ctx: Context): Promise<void> {
  const [{ http, target }, { listPets }, { maskKey }, { renderDetails }] = await Promise.all([
    ctx.api(),
    import('../../api/pets'),
    import('../../config/target'),
    import('../../output/details'),
  ]);
  const { response } = await listPets(http, { limit: 1 });
  const { rate } = response;
  const reset = rate.resetEpochSeconds === undefined ? undefined : new Date(rate.resetEpochSeconds * 1000).toISOString();
  const keySourceText = target.keySource === 'env' ? 'from PETCTL_API_KEY' : SOURCE_LABELS[target.keySource ?? 'profile'];
  const baseSourceText = target.baseUrlSource === 'env' ? 'from PETCTL_BASE_URL' : SOURCE_LABELS[target.baseUrlSource];
  const profileSourceText = target.profileSource === 'env' ? 'from PETCTL_PROFILE' : SOURCE_LABELS[target.profileSource];

  const object = {
    profile: target.profile,
    profileSource: target.profileSource,
    baseUrl: target.baseUrl,
    baseUrlSource: target.baseUrlSource,
    key: maskKey(target.apiKey),
    keySource: target.keySource,
    authenticated: true,
    rateLimit: { limit: rate.limit ?? null, remaining: rate.remaining ?? null, reset: reset ?? null },
  };
  const limitText =
    rate.limit === undefined ? 'not reported' : `${rate.remaining ?? '?'} of ${rate.limit} left${reset ? `, resets ${reset}` : ''}`;
  await writeResult(ctx, object, () =>
    renderDetails(
      [
        { key: 'profile', label: 'Profile', text: `${target.profile} (${profileSourceText})` },
        { key: 'baseUrl', label: 'Base URL', text: `${target.baseUrl} (${baseSourceText})` },
        { key: 'key', label: 'API key', text: `${object.key} (${keySourceText})` },
        { key: 'authenticated', label: 'Status', text: 'authenticated (GET /pets?limit=1 answered 200)' },
        { key: 'rateLimit', label: 'Rate limit', text: limitText },
      ],
      object,
      ctx.globals.output,
    ),
  );
}
