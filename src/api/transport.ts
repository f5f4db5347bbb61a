import type { Dispatcher } from 'undici';
import Agent from 'undici/lib/dispatcher/agent.js';
import apiRequest from 'undici/lib/api/api-request.js';

export interface TransportOptions {
  timeoutMs: number;
  env: Readonly<NodeJS.ProcessEnv>;
  /** Skip any proxy (loopback targets). */
  direct: boolean;
}

/** Largest answer accepted: a full page of 100 animals is a few KiB, so anything near this is not our service. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * Largest header block accepted: Node's default. Set here so undici does not
 * load node:http to read Node's (see scripts/build.mjs); it also means
 * NODE_OPTIONS=--max-http-header-size does not change petctl's limit.
 */
const MAX_HEADER_BYTES = 16 * 1024;

/**
 * The one undici dispatcher of a run. undici's own timeouts default to 300 s;
 * they follow --timeout here. HTTPS_PROXY / HTTP_PROXY / NO_PROXY (and their
 * lower-case forms) are honoured through EnvHttpProxyAgent, read from the
 * context's env rather than process.env, and loaded only when a proxy is set.
 * No retry interceptor: undici's caps Retry-After at its maxTimeout, which
 * would get a key banned (see client.ts).
 */
export async function createDispatcher(options: TransportOptions): Promise<Dispatcher> {
  const common = {
    connect: { timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    maxResponseSize: MAX_RESPONSE_BYTES,
    maxHeaderSize: MAX_HEADER_BYTES,
  };
  const { env } = options;
  const httpProxy = env.HTTP_PROXY || env.http_proxy;
  const httpsProxy = env.HTTPS_PROXY || env.https_proxy;
  if (options.direct || (!httpProxy && !httpsProxy)) return new Agent(common);
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

/**
 * The pool to the proxy through which ProxyAgent opens its CONNECT tunnels,
 * with two repairs:
 * - ProxyAgent calls pool.connect(), which undici's index adds to every
 *   dispatcher. petctl skips that index (start-up time), so it is added here;
 *   without it every proxied request failed with "connect is not a function".
 * - A proxy that hangs up during CONNECT fails the tunnel with UND_ERR_SOCKET,
 *   which undici's client takes for a recoverable socket error: it reconnects
 *   at once, for ever (thousands of CONNECTs a second, nodejs/undici#3897;
 *   the upstream fix, nodejs/undici#5441, is not in 7.30.2, and undici 8 needs
 *   Node 22), ignoring the request's abort, so --timeout and Ctrl-C never ended
 *   it. With any other code the client fails the request.
 */
function proxyPool(pool: Dispatcher, connect: (this: Dispatcher, options: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>): Dispatcher {
  return Object.assign(pool, {
    connect: (connectOptions: Dispatcher.ConnectOptions) =>
      connect.call(pool, connectOptions).catch((error: unknown) => {
        if ((error as { code?: string } | undefined)?.code !== 'UND_ERR_SOCKET') throw error;
        throw Object.assign(new Error('the proxy closed the connection while opening the tunnel', { cause: error }), { code: 'UND_ERR_PROXY_CLOSED' });
      }),
  });
}

/**
 * Ends the dispatcher's sockets at the end of a run, without waiting for them
 * to close (the process exits next, which closes them). undici hands each
 * socket an error, whose stack Node formats at once (a guard against a leak);
 * formatting a stack through code-cached functions makes V8 compile them again
 * for their source positions, in every command (docs/performance.md). The error given here
 * has no frames, and no one ever sees it.
 */
export function discardDispatcher(dispatcher: Dispatcher): void {
  const { stackTraceLimit } = Error;
  Error.stackTraceLimit = 0;
  const ended = new Error('petctl is done with this connection');
  Error.stackTraceLimit = stackTraceLimit;
  dispatcher.destroy(ended).catch(() => {});
}

/** undici's request() on any dispatcher (an Agent, a proxy agent, or a MockAgent in tests). */
export function sendRequest(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return apiRequest.call(dispatcher, options);
}

/**
 * OpenSSL's own words for a failed certificate check, without the advice
 * Node 24 appends ("; if the root CA is installed locally, try running Node.js
 * with --use-system-ca"), so the message reads the same on every Node.
 */
export function certificateProblem(error: { message?: string; code?: string } | undefined): string {
  return (error?.message ?? error?.code ?? 'certificate check failed').split('; if the root CA')[0]!;
}
