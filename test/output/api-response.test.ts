import { describe, expect, it } from 'vitest';
import { renderBody, renderHead } from '../../src/output/api-response';

const HOSTILE = 'x\u001b]0;PWNED\u0007\rEVIL\u202e';

describe('petctl api: outside text on a terminal, bytes when piped', () => {
  it('a body that is not JSON shows escapes on a terminal, keeping its tabs and newlines', () => {
    expect(renderBody(`${HOSTILE}\ta\nb`, 'table', true)).toBe('x\\x1b]0;PWNED\\x07\\rEVIL\\u202e\ta\nb\n');
  });

  it('a JSON body on a terminal is pretty, with every control as a \\u escape: the same value', () => {
    const shown = renderBody(JSON.stringify({ name: HOSTILE }), 'table', true);
    expect(shown).toBe('{\n  "name": "x\\u001b]0;PWNED\\u0007\\rEVIL\\u202e"\n}\n');
    expect(JSON.parse(shown)).toEqual({ name: HOSTILE });
  });

  it('-o json and -o ndjson on a terminal: C1 and bidi controls as \\u escapes, the same value; a body that is not JSON escaped too', () => {
    const body = JSON.stringify([{ name: 'Rex\u009b2J\u202e' }]);
    for (const format of ['json', 'ndjson'] as const) {
      const shown = renderBody(body, format, true);
      expect(shown).toContain('"Rex\\u009b2J\\u202e"');
      expect(shown).not.toMatch(/[\u0080-\u009f\u202e]/);
      expect(JSON.parse(shown)).toEqual(format === 'json' ? JSON.parse(body) : JSON.parse(body)[0]);
      expect(renderBody(HOSTILE, format, true)).toBe('x\\x1b]0;PWNED\\x07\\rEVIL\\u202e\n');
    }
    expect(renderBody(body, 'ndjson', false)).toBe(`${JSON.stringify(JSON.parse(body)[0])}\n`);
  });

  it('piped, the body is passed on byte for byte', () => {
    expect(renderBody(HOSTILE, 'table', false)).toBe(`${HOSTILE}\n`);
  });

  it('-i shows header values as escapes on a terminal, as sent when piped', () => {
    const answer = { status: 200, text: '', headers: { 'x-note': 'a\u009b2J\u202e' } };
    expect(renderHead(answer, true)).toBe('HTTP/1.1 200 OK\nX-Note: a\\x9b2J\\u202e\n\n');
    expect(renderHead(answer)).toBe('HTTP/1.1 200 OK\nX-Note: a\u009b2J\u202e\n\n');
  });
});
