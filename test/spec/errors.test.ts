import { describe, expect, it } from 'vitest';
import { expectCleanError, json, jsonError, rawExchange, sandboxFor, setupE2e } from './sides';

/** A raw HTTP/1.1 answer: its status, lower-cased headers and body. */
function parseAnswer(raw: string): { status: number; headers: Record<string, string>; body: string } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...fields] = head.split('\r\n');
  const headers = Object.fromEntries(fields.map((field) => [field.slice(0, field.indexOf(':')).toLowerCase(), field.slice(field.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/** The statuses' own rules are in their operations' files. */

describe.concurrent('Errors › "Every error response carries the Error body (code, message, status; all three required)"', () => {
  it('the sandbox answers requests its HTTP parser refuses (malformed, headers too large, too slow) with the Error body and X-RateLimit-* too', async (t) => {
    const { port } = await sandboxFor({ headersTimeoutMs: 300, requestTimeoutMs: 600 }, t);
    const answers = [
      await rawExchange(port, 'GET /v1/pets HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n'),
      await rawExchange(port, `GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      await rawExchange(port, 'GET /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n'),
    ].map(({ response }) => parseAnswer(response));
    expect(answers.map((answer) => answer.status)).toEqual([400, 431, 408]);
    for (const answer of answers) {
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers.connection).toBe('close');
      expect(Number.isNaN(Date.parse(answer.headers.date ?? ''))).toBe(false);
      expect(JSON.parse(answer.body)).toEqual({ code: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String), status: answer.status });
      expect(answer.headers['x-ratelimit-limit']).toBe('60');
      expect(answer.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
      expect(answer.headers['x-ratelimit-reset']).toMatch(/^\d{10}$/);
    }
  });

  it('the client still reports code, message and status when an error answer lacks the Error body', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(
      { status: 400, headers: { 'content-type': 'text/html' }, body: '<html>Bad Request</html>' },
      json(400, { message: 'only a message' }),
    );
    const text = await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '1']);
    expect(text.code).toBe(6);
    expectCleanError(text);
    expect(text.stderr).toMatch(/^error: HTTP 400 without an Error body: <html>Bad Request<\/html> \(http_400, HTTP 400\)$/m);
    const asJson = await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '1', '-o', 'json']);
    expect(asJson.code).toBe(6);
    expect(jsonError(asJson)).toEqual({ code: 'http_400', message: expect.stringContaining('without an Error body'), status: 400 });
    server.verify();
  });
});
