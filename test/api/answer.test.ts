import { describe, expect, it } from 'vitest';
import { type Answer, errorBodyOf, errorForAnswer, parseSuccessBody } from '../../src/api/answer';
import { AuthError, ExitCode, FailureError, InvalidResponseError, NotFoundError, RateLimitError, RejectedError, ServiceError } from '../../src/errors';
import { waitWords } from '../../src/output/waits';

const NOW = new Date(2026, 10, 25, 14, 31, 4, 0).getTime();
const URL = 'https://api.example.org/v1/pets';

function answer(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { status, text, headers, header: (name) => headers[name.toLowerCase()] };
}

const context = { method: 'GET', url: URL, now: NOW, words: waitWords };

describe('errorForAnswer', () => {
  it.each([
    { status: 400, body: { code: 'missing_field', message: 'name is required', status: 400 }, exit: ExitCode.REJECTED, code: 'missing_field', kind: RejectedError },
    { status: 401, body: { code: 'unauthorized', message: 'bad key', status: 401 }, exit: ExitCode.AUTH, code: 'unauthorized', kind: AuthError },
    { status: 404, body: { code: 'pet_not_found', message: 'no', status: 404 }, exit: ExitCode.NOT_FOUND, code: 'pet_not_found', kind: NotFoundError },
    { status: 422, body: { code: 'unprocessable', message: 'no', status: 422 }, exit: ExitCode.REJECTED, code: 'unprocessable', kind: RejectedError },
    { status: 418, body: { code: 'teapot', message: 'I am a teapot', status: 418 }, exit: ExitCode.FAILURE, code: 'teapot', kind: FailureError },
    { status: 418, body: 'I am a teapot', exit: ExitCode.FAILURE, code: 'http_418', kind: FailureError },
    { status: 500, body: { code: 'internal_error', message: 'oops', status: 500 }, exit: ExitCode.NETWORK, code: 'internal_error', kind: ServiceError },
  ])('HTTP $status → exit $exit, code $code', ({ status, body, exit, code, kind }) => {
    const error = errorForAnswer(answer(status, body), context);
    expect(error).toBeInstanceOf(kind);
    expect(error.exitCode).toBe(exit);
    expect(error.code).toBe(code);
  });

  it('a server that quotes the key back does not get it printed: [redacted] in the message, code, other fields and snippet', () => {
    const apiKey = 'pk_live_0123456789abcdef';
    const quoted = { code: `bad_${apiKey}`, message: `key ${apiKey} is not valid`, status: 401, key: apiKey };
    const error = errorForAnswer(answer(401, quoted), { ...context, apiKey });
    expect(error).toMatchObject({ code: 'bad_[redacted]', message: 'key [redacted] is not valid' });
    expect(JSON.stringify(error.body)).not.toContain(apiKey);
    expect(errorForAnswer(answer(502, `<p>${apiKey}</p>`), { ...context, apiKey }).message).toBe(`GET ${URL} failed with HTTP 502: <p>[redacted]</p>`);
    // A key of a few characters would blank out words: left as the server wrote it.
    expect(errorForAnswer(answer(400, { code: 'x', message: 'no pets', status: 400 }), { ...context, apiKey: 'pets' }).message).toBe('no pets');
  });

  it('a 401 carries the hint to store a working key', () => {
    expect(errorForAnswer(answer(401, 'nope'), context).hint).toBe('run petctl auth login');
    expect(errorForAnswer(answer(401, 'nope'), { ...context, authHint: 'petctl auth login -p prod' }).hint).toBe('petctl auth login -p prod');
  });

  it('a 502 page without an Error body is an invalid answer (exit 7) quoting its start', () => {
    const error = errorForAnswer(answer(502, '<html>\n<h1>Bad   Gateway</h1></html>'), context);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.message).toBe(`GET ${URL} failed with HTTP 502: <html> <h1>Bad Gateway</h1></html>`);
  });

  it.each([301, 302, 303, 307, 308])('HTTP %i is a redirect: the whole message', (status) => {
    const error = errorForAnswer(answer(status, '', { location: 'https://x.example/v2/pets' }), context);
    expect(error).toMatchObject({ exitCode: 7, code: 'redirected', status });
    expect(error.message).toBe(`GET ${URL} was redirected (HTTP ${status}) to https://x.example/v2/pets; petctl does not follow redirects: check the base URL`);
  });

  it('a redirect without a Location, or with a line break or 5,000 characters in it, is still one readable line', () => {
    const broken = errorForAnswer(answer(302, '', { location: 'https://evil.example/\r\nx' }), context);
    expect(broken.message).toContain('to https://evil.example/  x;');
    expect(errorForAnswer(answer(300, ''), context).message).toBe(
      `GET ${URL} was redirected (HTTP 300) without a Location header; petctl does not follow redirects: check the base URL`,
    );
    const location = `https://captive.example.test/${'a'.repeat(5000)}`;
    expect(errorForAnswer(answer(302, '', { location }), context).message).toContain(`to ${location.slice(0, 297)}...; petctl does not follow`);
  });

  it.each([
    { body: { code: 'rate_limited', message: 'Slow down', status: 429 }, retryAt: NOW + 61_000, kind: 'retry_after' },
    { body: { code: 'key_banned', message: 'banned', status: 429 }, retryAt: NOW + 30_000, kind: 'ban' },
  ])('a 429 $body.code: exit 5, and its stop, as output/waits.ts words it', ({ body, retryAt, kind }) => {
    const error = errorForAnswer(answer(429, body), { ...context, retryAt }) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ exitCode: ExitCode.RATE_LIMITED, code: body.code, retryAt });
    expect(error.stop).toEqual({ kind, until: retryAt, at: NOW, by: 'answer', serverMessage: body.message });
    expect({ message: error.message, hint: error.hint }).toEqual(waitWords.stop(error.stop!));
  });

  it('a 429 without Retry-After or reset: "later"', () => {
    expect(errorForAnswer(answer(429, 'x'), context).message).toBe('rate limited: too many requests. Try again later');
  });
});

describe('bodies', () => {
  it('errorBodyOf reads the Error body, or nothing', () => {
    expect(errorBodyOf('{"code":"x","message":"y","status":400}')).toMatchObject({ code: 'x' });
    expect(errorBodyOf('<html>')).toBeUndefined();
    expect(errorBodyOf('{"code":1}')).toBeUndefined();
    // All three fields, each of its type: a code that is not a string, no message, a status that is not an integer.
    expect(errorBodyOf('{"code":404,"message":"y","status":404}')).toBeUndefined();
    expect(errorBodyOf('{"code":"x","status":404}')).toBeUndefined();
    expect(errorBodyOf('{"code":"x","message":"y","status":"404"}')).toBeUndefined();
    // A blank code or message: `error:  (, HTTP 400)` would tell nobody anything.
    expect(errorBodyOf('{"code":"","message":"","status":400}')).toBeUndefined();
    expect(errorBodyOf('{"code":"x","message":" \\n ","status":400}')).toBeUndefined();
    expect(errorBodyOf('{"code":" ","message":"y","status":400}')).toBeUndefined();
  });

  it('parseSuccessBody: JSON, nothing for 204 or an empty body, exit 7 for anything else', () => {
    expect(parseSuccessBody(answer(200, [{ id: 1 }]), 'GET', URL)).toEqual([{ id: 1 }]);
    expect(parseSuccessBody(answer(204, ''), 'GET', URL)).toBeUndefined();
    expect(() => parseSuccessBody(answer(200, '<html>'), 'GET', URL)).toThrow(InvalidResponseError);
    expect(() => parseSuccessBody(answer(200, '<html><body>502</body></html>'), 'GET', URL)).toThrow(
      `GET ${URL} answered 200 with a body that is not JSON: <html><body>502</body></html>`,
    );
    expect(() => parseSuccessBody(answer(200, '[{"id":1,"name":"Rex","categ'), 'GET', URL)).toThrow(/answered 200 with a body that is not JSON/);
  });
});
