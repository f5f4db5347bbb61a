import type { Command } from 'commander';
import type { Context } from '../../context';
import { AuthError, InterruptedError, NetworkError, NotConfiguredError, PetctlError, UsageError, restated } from '../../errors';
import { readKey } from '../../input/read-key';
import type { Invoke } from '../types';

export interface LoginOptions {
  withToken: boolean;
  /** Check the key with GET /pets?limit=1 before storing it (--no-verify: don't). */
  verify: boolean;
  /** Keep the key in config.json rather than the keychain. */
  insecureStorage?: boolean;
}

export function registerLogin(auth: Command, invoke: Invoke): void {
  auth
    .command('login')
    .description('check an API key with the service and store it in the profile (hidden prompt on a terminal)')
    .option('--with-token', 'read the key from standard input (also when stdin is not a terminal)')
    .option('--no-verify', 'store the key without checking it (e.g. offline)')
    .option('--insecure-storage', "store the key in config.json (mode 0600) rather than the system's keychain")
    .addHelpText(
      'after',
      `
Examples:
  $ petctl auth login                              # prompts, echoing nothing
  $ petctl auth login -p staging --with-token < key.txt
  $ printf %s "$PET_KEY" | petctl auth login --with-token
  $ petctl auth login -p production --no-verify --with-token < key.txt

The key is checked with one request (GET /pets?limit=1): accepted, it is
stored and the plan's rate limit shown; a 401 is "key not accepted", exit 4;
a 404 means the base URL is wrong, exit 2; any other answer than a success
stores nothing either. A service that cannot be reached at all stores it
with a warning.
The key goes to the system's keychain (Secret Service, macOS Keychain, Windows
Credential Manager) and config.json keeps only where it is; with no keychain
answering within 3 s, or with --insecure-storage, config.json (mode 0600) holds it.
A profile that had a key says which it replaced, masked:
  replaced the key ****-pro with ****ness for profile staging
With --no-input (PETCTL_NO_INPUT=1) it never prompts: pipe the key with --with-token.
The key is never a flag (it would land in shell history and ps output).`,
    )
    .action((options: { withToken?: boolean; verify: boolean; insecureStorage?: boolean }) =>
      invoke((ctx) => loginRun({ withToken: options.withToken === true, verify: options.verify !== false, insecureStorage: options.insecureStorage === true }, ctx)),
    );
}

export async function loginRun(options: LoginOptions, ctx: Context): Promise<void> {
  const [store, { resolveProfileName }, { validateApiKey }] = await Promise.all([
    ctx.profiles(),
    import('../../config/target'),
    import('../../config/profiles'),
  ]);
  const { name } = resolveProfileName(store, { profileFlag: ctx.globals.profile, env: ctx.env });
  const key = validateApiKey(await readKey(ctx, name, options.withToken));
  if (options.verify) await checkKey(ctx, key);
  const placed = await store.setKey(name, key, { insecureStorage: options.insecureStorage });
  const { describeKeyChange, describeKeyLeftBehind, describeKeyPlace } = await import('../../output/key-change');
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
  const [{ openApiSession }, { listPets }] = await Promise.all([import('../../app/session'), import('../../api/endpoints/pets')]);
  const { http, target } = await openApiSession(ctx, { apiKey: key });
  const service = target.baseUrlSource === 'sandbox' ? 'the embedded sandbox' : target.baseUrl;
  try {
    const { rate } = (await listPets(http, { limit: 1 })).response;
    const remaining = rate.remaining === undefined ? '' : `, ${rate.remaining} left`;
    ctx.notice(`Key accepted by ${service}: ${rate.limit === undefined ? 'it reported no rate limit' : `rate limit ${rate.limit}${remaining}`}.`);
  } catch (error) {
    if (!(error instanceof PetctlError) || error instanceof InterruptedError || error instanceof UsageError || error instanceof NotConfiguredError) throw error;
    if (error instanceof NetworkError) {
      // No answer at all: the key cannot be checked now, and offline set-up is worth allowing.
      // The error's hint still helps (nothing listening on the sandbox's port: is it running?).
      ctx.warn(`the key could not be checked (${error.message}); storing it unchecked${error.hint ? ` (${error.hint})` : ''}`);
      return;
    }
    throw await refusal(error, service, target.baseUrlSource === 'sandbox' ? undefined : target.baseUrl);
  }
}

/** Why an answer other than a success stores nothing: the key refused, a wrong base URL, or the answer's own error. */
async function refusal(error: PetctlError, service: string, baseUrl: string | undefined): Promise<PetctlError> {
  const details = { code: error.code, status: error.status, cause: error };
  if (error.status === 401 || error.status === 403) {
    return new AuthError(`key not accepted by ${service}: ${error.message}`, { ...details, hint: 'check the key; --no-verify stores it without asking the service' });
  }
  if (error.status === 404) {
    const { withVersionSegment } = await import('../../config/base-url');
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
