import { describe, expect, it } from 'vitest';
import { describeNetworkError, errorCode, networkFailure } from '../../src/api/attempt';
import { failureTarget } from '../../src/app/session';
import { DEFAULT_PORT } from '../../src/sandbox/defaults';

const failure = (code: string, message = `connect ${code}`) => Object.assign(new Error(message), { code });
const request = (url: string) => ({ method: 'GET', url, timeoutMs: 30_000, timedOut: false });
/** What the session says of the base URL's host and port (app/session.ts). */
const targetOf = (url: string) => failureTarget(new URL(url));

describe('networkFailure', () => {
  it('a refused loopback connection: not sent, not retryable, nothing listens there', () => {
    const error = networkFailure(failure('ECONNREFUSED'), request('http://127.0.0.1:8080/v1/pets'), targetOf('http://127.0.0.1:8080/v1'));
    expect(error.sent).toBe(false);
    expect(error.retryable).toBe(false);
    expect(error.message).toBe('GET http://127.0.0.1:8080/v1/pets failed: connection refused: nothing is listening on 127.0.0.1:8080');
    expect(error.hint).toBeUndefined();
  });

  it("on the sandbox's default port it names petctl sandbox", () => {
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      const error = networkFailure(failure('ECONNREFUSED'), request(`http://${host}:${DEFAULT_PORT}/v1/pets`), targetOf(`http://${host}:${DEFAULT_PORT}/v1`));
      expect(error.message).toContain(`nothing is listening on ${host}:${DEFAULT_PORT}`);
      expect(error.hint).toBe('is the sandbox running? start it with petctl sandbox');
    }
  });

  it('a refused connection elsewhere is worth retrying (a server restarting behind a balancer)', () => {
    const error = networkFailure(failure('ECONNREFUSED'), request('https://api.example.org/v1/pets'), targetOf('https://api.example.org/v1'));
    expect(error.retryable).toBe(true);
    expect(error.sent).toBe(false);
    expect(error.message).toBe('GET https://api.example.org/v1/pets failed: connection refused');
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

  it("a timeout cut short by the request's bound says so", () => {
    const error = networkFailure(new Error('aborted'), { ...request('https://api.example.org/v1/pets'), timeoutMs: 1234, timedOut: true, cutShort: true });
    expect(error.message).toBe("no answer from api.example.org within 1.234s (what was left of the request's time)");
  });

  it('a timeout names --timeout', () => {
    const error = networkFailure(new Error('aborted'), { ...request('https://api.example.org/v1/pets'), timedOut: true });
    expect(error.code).toBe('timeout');
    expect(error.message).toBe('no answer from api.example.org within 30s (--timeout)');
  });
});

describe('errorCode and describeNetworkError', () => {
  it('reads the code from the error or its cause', () => {
    expect(errorCode(failure('ECONNRESET'))).toBe('ECONNRESET');
    expect(errorCode(new Error('x', { cause: failure('EAI_AGAIN') }))).toBe('EAI_AGAIN');
    expect(errorCode(undefined)).toBeUndefined();
  });

  it('falls back to the message', () => {
    expect(describeNetworkError(new Error('something odd'))).toBe('something odd');
  });
});
