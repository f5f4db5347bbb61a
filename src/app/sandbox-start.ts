import { FailureError, UsageError } from '../errors';
import type { RunningSandbox, SandboxOptions } from '../sandbox/server';
import { MINUTE_MS_RULE, MIN_MINUTE_MS } from '../sandbox/defaults';

/** A --host the sandbox cannot listen on, by the error listen() gives. */
const HOST_PROBLEMS: Record<string, string> = {
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  EADDRNOTAVAIL: 'it is not an address of this machine',
};

/** The embedded service started (petctl sandbox, the built-in profile), or why not: exit 1, or 2 for a --host it cannot listen on. */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const [{ startSandbox: start }, { SandboxDataFileError }] = await Promise.all([import('../sandbox/server'), import('../sandbox/errors')]);
  try {
    return await start(options);
  } catch (error) {
    if (error instanceof SandboxDataFileError) throw new FailureError(error.message, { code: 'sandbox_data_file', cause: error });
    const { code, port } = error as { code?: string; port?: number };
    const why = HOST_PROBLEMS[code ?? ''];
    if (why !== undefined) {
      throw new UsageError(`cannot listen on ${options.host}: ${why}`, 'give --host an address of this machine: 127.0.0.1 (loopback) or 0.0.0.0 (every interface)');
    }
    if (code !== 'EADDRINUSE') throw error;
    throw new FailureError(`port ${port ?? ''} is already in use`, { code: 'port_in_use', hint: 'pick another with --port, or --port 0 for a free one', cause: error });
  }
}

/** The built-in profile's test hook, read as `--minute-ms` is: a bad one is a usage error before the sandbox starts. */
export function sandboxMinuteMs(env: Readonly<NodeJS.ProcessEnv>): number | undefined {
  const given = env.PETCTL_SANDBOX_MINUTE_MS;
  if (given === undefined || given === '') return undefined;
  if (!/^\d+$/.test(given) || Number(given) < MIN_MINUTE_MS) {
    throw new UsageError(`PETCTL_SANDBOX_MINUTE_MS ${MINUTE_MS_RULE}, not ${JSON.stringify(given)}`);
  }
  return Number(given);
}
