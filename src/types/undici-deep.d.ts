// The undici modules petctl loads directly: undici's index would load fetch, WebSocket, caches and mocks
// (and zlib, http2, worker_threads) on every start. The pool and connect() only on the proxy path (api/transport.ts).
declare module 'undici/lib/dispatcher/agent.js' {
  export { Agent as default } from 'undici';
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  export { EnvHttpProxyAgent as default } from 'undici';
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}
declare module 'undici/lib/dispatcher/pool.js' {
  export { Pool as default } from 'undici';
}
declare module 'undici/lib/api/api-connect.js' {
  import type { Dispatcher } from 'undici';
  function connect(this: Dispatcher, options: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData>;
  export default connect;
}
