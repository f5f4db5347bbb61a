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
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * The one undici dispatcher of a run. undici's own timeouts default to 300 s;
 * they follow --timeout here. HTTPS_PROXY / HTTP_PROXY / NO_PROXY (and their
 * lower-case forms) are honoured through EnvHttpProxyAgent, read from the
 * context's env rather than process.env, and loaded only when a proxy is set.
 * No retry interceptor: undici's caps Retry-After at its maxTimeout, which
 * would get a key banned (see http-client.ts).
 */
export async function createDispatcher(options: TransportOptions): Promise<Dispatcher> {
  const common = {
    connect: { timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    maxResponseSize: MAX_RESPONSE_BYTES,
  };
  const { env } = options;
  const httpProxy = env.HTTP_PROXY || env.http_proxy;
  const httpsProxy = env.HTTPS_PROXY || env.https_proxy;
  if (options.direct || (!httpProxy && !httpsProxy)) return new Agent(common);
  const { default: EnvHttpProxyAgent } = await import('undici/lib/dispatcher/env-http-proxy-agent.js');
  return new EnvHttpProxyAgent({
    ...common,
    httpProxy,
    // Like curl, an HTTP_PROXY alone serves https:// URLs too.
    httpsProxy: httpsProxy || httpProxy,
    noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
  });
}

/** undici's request() on any dispatcher (an Agent, a proxy agent, or a MockAgent in tests). */
export function sendRequest(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return apiRequest.call(dispatcher, options);
}
