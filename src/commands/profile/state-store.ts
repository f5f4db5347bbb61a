import type { SecretPlacement } from '../../config/keychain';
import { stateStoreAddress } from '../../config/state-url';
import { isLoopbackHost } from '../../config/url-check';
import type { Context } from '../../context';
import { UsageError } from '../../errors';
import { readSecret } from '../../input/prompts';
import { describeKeyPlace } from '../../output/profile';

/** What `profile add` and `profile set` are given: --base-url is the global flag. */
export interface ProfileOptions {
  name: string;
  baseUrl?: string;
  stateUrl?: string;
  statePasswordStdin?: boolean;
}

/** The password --state-password-stdin reads for the profile's state URL; one in the URL as well is refused, so that it is clear which is used. */
export async function readStatePassword(ctx: Context, name: string, stateUrl: string | undefined): Promise<string> {
  if (stateUrl === undefined) {
    throw new UsageError(`profile ${JSON.stringify(name)} has no state URL for the password`, `give one: petctl profile set ${name} --state-url redis://host:6379/0 --state-password-stdin`);
  }
  if (stateStoreAddress(stateUrl).password !== undefined) {
    throw new UsageError('the state URL holds a password and --state-password-stdin reads another', 'leave the password out of the URL');
  }
  return readSecret(ctx, {
    what: 'state store password',
    prompt: `State store password for profile "${name}": `,
    hint: `printf %s "$PASSWORD" | petctl profile set ${name} --state-password-stdin`,
    fromStdin: false,
  });
}

/** redis:// beyond this machine would carry the state store's password unencrypted. */
export async function warnIfPasswordInClear(ctx: Context, stateUrl: string, storedPassword: boolean): Promise<void> {
  const address = stateStoreAddress(stateUrl);
  if ((storedPassword || address.password !== undefined) && !address.tls && !isLoopbackHost(address.host)) {
    ctx.warn('redis:// sends the state store\'s password unencrypted; prefer rediss:// beyond a trusted network');
  }
}

/** A password meant for the keychain that went to config.json says so, as auth login does for a key. */
export function notePasswordPlace(ctx: Context, placed: SecretPlacement | undefined, configFile: string): void {
  if (placed?.keychainFailure) ctx.notice(describeKeyPlace(configFile, 'the state store password'));
}
