import { describe, expect, it } from 'vitest';
import { describeNetworkError, errorCode, networkFailure } from '../../src/api/attempt';
import { failureTarget } from '../../src/app/session';
import { DEFAULT_PORT } from '../../src/sandbox/defaults';

const failure = (code: string, message = `connect ${code}`) => Object.assign(new Error(message), { code });
const request = (url: string) => ({ method: 'GET', url, timeoutMs: 30_000, timedOut: false });

describe('networkFailure', () => {
  const listening = (host: string) => `connection refused: nothing is listening on ${host}`;
  it.each([
    { url: 'http://127.0.0.1:8080/v1', retryable: false, words: listening('127.0.0.1:8080'), hint: undefined },
    // On the sandbox's default port it names petctl sandbox.
    ...['127.0.0.1', 'localhost', '[::1]'].map((host) => ({
      url: `http://${host}:${DEFAULT_PORT}/v1`,
      retryable: false,
      words: listening(`${host}:${DEFAULT_PORT}`),
      hint: 'is the sandbox running? start it with petctl sandbox',
    })),
    // Elsewhere it may be a server restarting behind a balancer.
    { url: 'https://api.example.org/v1', retryable: true, words: 'connection refused', hint: undefined },
  ])('a refused connection to $url: not sent, retryable $retryable', ({ url, retryable, words, hint }) => {
    const error = networkFailure(failure('ECONNREFUSED'), request(`${url}/pets`), failureTarget(new URL(url)));
    const expected = [false, retryable, `GET ${url}/pets failed: ${words}`, hint];
    expect([error.sent, error.retryable, error.message, error.hint]).toEqual(expected);
  });

  // A host that does not resolve, or a plain-HTTP port spoken to in TLS, is not retried.
  it.each([
    ['ENOTFOUND', false, false, 'cannot resolve the host api.example.org'],
    ['EAI_AGAIN', false, false, 'cannot resolve the host api.example.org'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', false, false, 'the server at api.example.org:443 does not speak TLS; is the base URL http://?'],
    ['ECONNRESET', true, undefined, 'connection reset by the server'],
    ['UND_ERR_SOCKET', true, undefined, 'the connection closed before the answer was complete'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', false, undefined, "the server's TLS certificate is not trusted"],
  ])('%s: sent %s, retryable %s, "%s"', (code, sent, retryable, text) => {
    const error = networkFailure(failure(code), request('https://api.example.org/v1/pets'));
    expect(error.sent).toBe(sent);
    if (retryable !== undefined) expect(error.retryable).toBe(retryable);
    expect(error.message).toContain(text);
  });

  // undici's ProxyAgent says so in words only: the tunnel was refused, so nothing reached the service (a POST
  // was not sent, and an import's row is not left unknown).
  it.each([
    { status: 403, retryable: false, hint: 'check HTTPS_PROXY and NO_PROXY' },
    { status: 407, retryable: false, hint: expect.stringContaining('the proxy asks for credentials') },
    { status: 502, retryable: true, hint: 'check HTTPS_PROXY and NO_PROXY' },
  ])('a proxy answering CONNECT with $status: not sent, retryable $retryable', ({ status, retryable, hint }) => {
    const words = `Proxy response (${status}) !== 200 when HTTP Tunneling`;
    const refused = Object.assign(new Error(words), { code: 'UND_ERR_ABORTED' });
    const error = networkFailure(refused, { ...request('https://api.example.org/v1/pets'), method: 'POST' });
    const why = `the proxy refused to connect to api.example.org (HTTP ${status}); nothing was sent`;
    const { sent, message } = error;
    expect({ sent, retryable: error.retryable, message, hint: error.hint }).toEqual({
      sent: false,
      retryable,
      message: `POST https://api.example.org/v1/pets failed: ${why}`,
      hint,
    });
  });

  it.each([
    { timing: { timeoutMs: 1234, cutShort: true }, words: "within 1.234s (what was left of the request's time)" },
    { timing: {}, words: 'within 30s (--timeout)' },
  ])('a timeout says how long it waited: $words', ({ timing, words }) => {
    const timedOut = { ...request('https://api.example.org/v1/pets'), timedOut: true, ...timing };
    const error = networkFailure(new Error('aborted'), timedOut);
    expect(error.code).toBe('timeout');
    expect(error.message).toBe(`no answer from api.example.org ${words}`);
  });
});

describe('errorCode and describeNetworkError', () => {
  it('reads the code from the error or its cause', () => {
    expect(errorCode(failure('ECONNRESET'))).toBe('ECONNRESET');
    expect(errorCode(new Error('x', { cause: failure('EAI_AGAIN') }))).toBe('EAI_AGAIN');
    expect(errorCode(undefined)).toBeUndefined();
    // describeNetworkError falls back to the message.
    expect(describeNetworkError(new Error('something odd'))).toBe('something odd');
  });
});
