import { FailureError } from '../errors';
import type { RunningSandbox, SandboxOptions } from '../sandbox/server';

/** The embedded service started (petctl sandbox, the built-in profile), or why not as an error of exit 1. */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const [{ startSandbox: start }, { SandboxDataFileError }] = await Promise.all([import('../sandbox/server'), import('../sandbox/errors')]);
  try {
    return await start(options);
  } catch (error) {
    if (error instanceof SandboxDataFileError) throw new FailureError(error.message, { code: 'sandbox_data_file', cause: error });
    const { code, port } = error as { code?: string; port?: number };
    if (code !== 'EADDRINUSE') throw error;
    throw new FailureError(`port ${port ?? ''} is already in use`, { code: 'port_in_use', hint: 'pick another with --port, or --port 0 for a free one', cause: error });
  }
}
