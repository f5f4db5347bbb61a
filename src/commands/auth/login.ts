import type { Context } from '../../context';
import { AuthError, InterruptedError, NetworkError, NotConfiguredError, PetctlError, UsageError, restated } from '../../errors';
import { readSecret } from '../../input/prompts';
import { openApiSession } from '../../app/session';
import { listPets } from '../../api/endpoints/pets';
import { withVersionSegment } from '../../config/url-check';
import { validateApiKey } from '../../config/config-file';
import { resolveProfileName } from '../../config/target';
import { describeKeyChange, describeKeyLeftBehind, describeKeyPlace } from '../../output/profile';

export async function loginRun(options: { withToken?: boolean; verify: boolean; insecureStorage?: boolean }, ctx: Context): Promise<void> {
  const store = await ctx.profiles();
  const { name } = resolveProfileName(store, { profileFlag: ctx.globals.profile, env: ctx.env });
  const prompt = `API key for profile "${name}": `;
  const hint = 'echo "$KEY" | petctl auth login --with-token';
  const key = validateApiKey(await readSecret(ctx, { what: 'API key', prompt, hint, fromStdin: options.withToken === true }));
  if (options.verify) await checkKey(ctx, key);
  const placed = await store.setKey(name, key, { insecureStorage: options.insecureStorage });
  if (placed.keychainFailure) {
    if (ctx.globals.verbose) ctx.line(`petctl: ${placed.keychainFailure.message}`);
    ctx.notice(describeKeyPlace(store.path));
  }
  ctx.notice(
    describeKeyChange(name, placed, key) ?? `API key stored for profile "${name}". Check it with: petctl auth status${ctx.globals.profile ? ` -p ${name}` : ''}`,
  );
  if (placed.leftBehind) ctx.warn(describeKeyLeftBehind(placed.leftBehind));
  if (ctx.env.PETCTL_API_KEY) ctx.warn('PETCTL_API_KEY is set and overrides the stored key until you unset it');
}

/** One GET /pets?limit=1 with the new key: says what the service answered; a 401 (or 403) refuses the key. */
async function checkKey(ctx: Context, key: string): Promise<void> {
  const { http, target } = await openApiSession(ctx, { apiKey: key });
  const service = target.baseUrlSource === 'sandbox' ? 'the embedded sandbox' : target.baseUrl;
  try {
    const { rate } = (await listPets(http, { limit: 1 })).response;
    const remaining = rate.remaining === undefined ? '' : `, ${rate.remaining} left`;
    ctx.notice(`Key accepted by ${service}: ${rate.limit === undefined ? 'it reported no rate limit' : `rate limit ${rate.limit}${remaining}`}.`);
  } catch (error) {
    if (!(error instanceof PetctlError) || error instanceof InterruptedError || error instanceof UsageError || error instanceof NotConfiguredError) throw error;
    if (error instanceof NetworkError) {
      // No answer: the key cannot be checked now, and offline set-up is worth allowing (the error's hint still helps).
      ctx.warn(`the key could not be checked (${error.message}); storing it unchecked${error.hint ? ` (${error.hint})` : ''}`);
      return;
    }
    throw refusal(error, service, target.baseUrlSource === 'sandbox' ? undefined : target.baseUrl);
  }
}

/** Why an answer other than a success stores nothing: the key refused, a wrong base URL, or the answer's own error. */
function refusal(error: PetctlError, service: string, baseUrl: string | undefined): PetctlError {
  const details = { code: error.code, status: error.status, cause: error };
  if (error.status === 401 || error.status === 403) {
    return new AuthError(`key not accepted by ${service}: ${error.message}`, { ...details, hint: 'check the key; --no-verify stores it without asking the service' });
  }
  if (error.status === 404) {
    const versioned = baseUrl === undefined ? undefined : withVersionSegment(baseUrl);
    return new UsageError(`${service} has no /pets (HTTP 404): the base URL is wrong; nothing stored`, {
      ...details,
      code: 'wrong_base_url',
      hint: versioned ? `the base URL probably lacks /v1: ${versioned}` : 'check the base URL: petctl profile show',
    });
  }
  return restated(error, `the key could not be checked (${error.message}); nothing stored`, {
    ...details,
    hint: error.hint ?? '--no-verify stores it without asking the service',
  });
}
