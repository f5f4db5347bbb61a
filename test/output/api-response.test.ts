import { describe, expect, it } from 'vitest';
import { renderBody, renderHead } from '../../src/output/api-response';

/** A JSON body is pretty JSON through output/formats.ts: its escapes on a terminal are listing.test.ts's "openItemStream". */

const HOSTILE = 'x\u001b]0;PWNED\u0007\rEVIL\u202e';
const SHOWN = 'x\\x1b]0;PWNED\\x07\\rEVIL\\u202e';

describe('petctl api: outside text on a terminal, bytes when piped', () => {
  it.each([
    ['a body that is not JSON shows escapes on a terminal, keeping its tabs and newlines', `${HOSTILE}\ta\nb`, 'table', true, `${SHOWN}\ta\nb\n`],
    ['a JSON body on a terminal is pretty, with every control as a \\u escape: the same value', JSON.stringify({ name: HOSTILE }), 'table', true, '{\n  "name": "x\\u001b]0;PWNED\\u0007\\rEVIL\\u202e"\n}\n'],
    ['-o json on a terminal: a body that is not JSON escaped too', HOSTILE, 'json', true, `${SHOWN}\n`],
    ['-o csv on a terminal: the body as sent, escaped as every other format', `${HOSTILE}\ta\nb`, 'csv', true, `${SHOWN}\ta\nb\n`],
    ['piped, the body is passed on byte for byte', HOSTILE, 'table', false, `${HOSTILE}\n`],
  ] as const)('%s', (_title, body, format, tty, expected) => {
    expect(renderBody(body, format, tty)).toBe(expected);
  });

  it('piped: -o ndjson prints an array an element a line and an object on one line, int64-exact; a body that is not JSON as sent', () => {
    const big = '9007199254740993'; // 2^53 + 1: JSON.parse would make it ...992
    const orders = `[{"id":${big},"petId":7,"quantity":1},{"id":2,"petId":8,"quantity":3}]`;
    expect(renderBody(orders, 'ndjson', false)).toBe(`{"id":${big},"petId":7,"quantity":1}\n{"id":2,"petId":8,"quantity":3}\n`);
    expect(renderBody('{"a":1}', 'ndjson', false)).toBe('{"a":1}\n');
    expect(renderBody('plain text, no newline', 'json', false)).toBe('plain text, no newline\n');
  });

  it('-i: the status line, each header (names capitalised by word), a blank line; values escaped on a terminal', () => {
    const headers = { 'x-ratelimit-remaining': '41', link: '</v1/pets?after=2>; rel="next"', 'content-type': 'application/json' };
    expect(renderHead({ status: 200, text: '[]', headers })).toBe(
      'HTTP/1.1 200 OK\nX-Ratelimit-Remaining: 41\nLink: </v1/pets?after=2>; rel="next"\nContent-Type: application/json\n\n',
    );
    const answer = { status: 200, text: '', headers: { 'x-note': 'a\u009b2J\u202e' } };
    expect(renderHead(answer, true)).toBe('HTTP/1.1 200 OK\nX-Note: a\\x9b2J\\u202e\n\n');
    expect(renderHead(answer)).toBe('HTTP/1.1 200 OK\nX-Note: a\u009b2J\u202e\n\n');
  });
});
