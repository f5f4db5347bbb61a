import type { Context } from '../../context';
import { renderDetails } from '../../output/formats';
import { writeResult } from '../../output/records';
import { listPets } from '../../api/endpoints/pets';
import { maskKey } from '../../config/target';
import { describeTarget } from '../../output/profile';
import { formatLocalDateTime } from '../../output/time';

export async function statusRun(ctx: Context): Promise<void> {
  const { http, target } = await ctx.api();
  // What it learns of the limits is kept, so that `profile show` says the same until the window ends.
  const { rate } = (await listPets(http, { limit: 1 })).response;
  const resetMs = rate.resetEpochSeconds === undefined ? undefined : rate.resetEpochSeconds * 1000;
  const object = {
    profile: target.profile ?? null,
    profileSource: target.profileSource,
    baseUrl: target.baseUrl,
    baseUrlSource: target.baseUrlSource,
    key: maskKey(target.apiKey),
    keySource: target.keySource,
    // Where the key in use is kept: null when it is not a stored one (PETCTL_API_KEY, the sandbox's own).
    keyStorage: (target.keySource === 'profile' ? target.keyStorage : undefined) ?? null,
    authenticated: true,
    // JSON keeps the moment unambiguous (UTC, ISO 8601); people read it in their own time zone.
    rateLimit: { limit: rate.limit ?? null, remaining: rate.remaining ?? null, reset: resetMs === undefined ? null : new Date(resetMs).toISOString() },
    configFile: ctx.paths.configFile,
  };
  const said = describeTarget(target, object.key, false, true);
  const resets = resetMs === undefined ? '' : `, resets ${formatLocalDateTime(resetMs)}`;
  const limitText = rate.limit === undefined ? 'not reported' : `${rate.remaining ?? '?'} of ${rate.limit} left${resets}`;
  await writeResult(ctx, object, (tty) =>
    renderDetails(
      [
        { key: 'profile', label: 'Profile', text: said.profile },
        { key: 'baseUrl', label: 'Base URL', text: said.baseUrl },
        { key: 'key', label: 'API key', text: said.key! },
        { key: 'authenticated', label: 'Status', text: 'authenticated (GET /pets?limit=1 answered 200)' },
        { key: 'rateLimit', label: 'Rate limit', text: limitText },
        { key: 'configFile', label: 'Config', text: object.configFile },
      ],
      object,
      ctx.globals.output,
      tty,
    ),
  );
}
