import type { Dispatcher } from 'undici';
import Agent from 'undici/lib/dispatcher/agent.js';
import { UsageError } from '../errors';

interface TransportOptions {
  timeoutMs: number;
  env: Readonly<NodeJS.ProcessEnv>;
  /** Skip any proxy (loopback targets). */
  direct: boolean;
}

/** Largest answer accepted: a full page of 100 animals is a few KiB, so anything near this is not our service. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Node's default header limit, set here so undici does not load node:http to read it (scripts/build.mjs); so NODE_OPTIONS cannot change it. */
const MAX_HEADER_BYTES = 16 * 1024;

/** No retry interceptor: undici's caps Retry-After at its maxTimeout, which would get a key banned. */
export async function createDispatcher(options: TransportOptions): Promise<Dispatcher> {
  const common = {
    connect: { timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    maxResponseSize: MAX_RESPONSE_BYTES,
    maxHeaderSize: MAX_HEADER_BYTES,
  };
  if (options.direct) return new Agent(common);
  const { env } = options;
  const httpProxy = proxyUrl(env, 'HTTP_PROXY');
  const httpsProxy = proxyUrl(env, 'HTTPS_PROXY');
  if (!httpProxy && !httpsProxy) return new Agent(common);
  const [{ default: EnvHttpProxyAgent }, { default: Pool }, { default: connect }] = await Promise.all([
    import('undici/lib/dispatcher/env-http-proxy-agent.js'),
    import('undici/lib/dispatcher/pool.js'),
    import('undici/lib/api/api-connect.js'),
  ]);
  return new EnvHttpProxyAgent({
    ...common,
    httpProxy,
    // Like curl, an HTTP_PROXY alone serves https:// URLs too.
    httpsProxy: httpsProxy || httpProxy,
    noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
    clientFactory: (origin: URL, poolOptions: object) => proxyPool(new Pool(origin, poolOptions), connect),
  } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);
}

/** The upper-case variable first, as curl reads them; one undici cannot use is refused here, not as its "Invalid URL".
 * Its value is never echoed: it may hold the proxy's password. */
function proxyUrl(env: Readonly<NodeJS.ProcessEnv>, name: 'HTTP_PROXY' | 'HTTPS_PROXY'): string | undefined {
  const variable = env[name] ? name : name.toLowerCase();
  const value = env[variable];
  if (!value) return undefined;
  if (!['http:', 'https:', 'socks5:', 'socks:'].includes(URL.canParse(value) ? new URL(value).protocol : '')) {
    throw new UsageError(`${variable} is not a proxy URL`, 'expected e.g. http://proxy.example:3128');
  }
  return value;
}

/** The pool to the proxy, with pool.connect() (undici's index, skipped for start-up time, adds it), and a proxy hanging
 * up during CONNECT under a code undici's client does not retry for ever (nodejs/undici#3897, fixed after 7.30.2). */
function proxyPool(pool: Dispatcher, connect: (this: Dispatcher, options: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>): Dispatcher {
  return Object.assign(pool, {
    connect: (connectOptions: Dispatcher.ConnectOptions) =>
      connect.call(pool, connectOptions).catch((error: unknown) => {
        if ((error as { code?: string } | undefined)?.code !== 'UND_ERR_SOCKET') throw error;
        throw Object.assign(new Error('the proxy closed the connection while opening the tunnel', { cause: error }), { code: 'UND_ERR_PROXY_CLOSED' });
      }),
  });
}

/** Ends the sockets without waiting, with an error without frames: formatting a stack recompiles code-cached functions (docs/performance.md). */
export function discardDispatcher(dispatcher: Dispatcher): void {
  const { stackTraceLimit } = Error;
  Error.stackTraceLimit = 0;
  const ended = new Error('petctl is done with this connection');
  Error.stackTraceLimit = stackTraceLimit;
  dispatcher.destroy(ended).catch(() => {});
}

/** OpenSSL's words for a failed certificate check, without the advice Node 24 appends: the same on every Node. */
export function certificateProblem(error: { message?: string; code?: string } | undefined): string {
  return (error?.message ?? error?.code ?? 'certificate check failed').split('; if the root CA')[0]!;
}
