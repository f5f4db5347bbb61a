// Types for the two undici modules petctl loads directly instead of undici's
// index, which would also load fetch, WebSocket, caches and mocks (and with
// them zlib, http2, worker_threads) on every start.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import { EnvHttpProxyAgent } from 'undici';
  export default EnvHttpProxyAgent;
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}
