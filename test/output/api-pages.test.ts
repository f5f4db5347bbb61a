import { describe, expect, it } from 'vitest';
import { openItemStream } from '../../src/output/listing-stream';
import { continuePaginateCommand, hiddenValuesNote, listingProgress, stopLine } from '../../src/output/listing-stop';
import { stringifyJson } from '../../src/schemas/json';
import type { OutputFormat } from '../../src/output/format';

/** `petctl api --paginate`'s items written page by page, against the whole array at once. */

const PAGES: unknown[][] = [[{ id: 1, tags: ['a', 'b'] }, 'a string\u001b[31m\u009b\u202e', null], [], [{ id: 9007199254740993n, nested: { deep: [1, { x: 2 }] } }]];

function streamed(format: OutputFormat, tty: boolean, pages: unknown[][] = PAGES): string {
  let text = '';
  const stream = openItemStream(format, tty, (chunk) => (text += chunk));
  for (const page of pages) stream.write(page);
  stream.end();
  return text;
}

describe('openItemStream', () => {
  it.each([['json', false], ['table', false]] as const)('%s (terminal: %s): one JSON array, byte for byte stringifyJson of every item', (format, tty) => {
    expect(streamed(format, tty)).toBe(`${stringifyJson(PAGES.flat(), 2)}\n`);
    expect(streamed(format, tty, [[], []])).toBe('[]\n');
  });

  it('ndjson: one item per line, int64-exact', () => {
    expect(streamed('ndjson', false)).toBe(`${PAGES.flat().map((item) => stringifyJson(item)).join('\n')}\n`);
    expect(streamed('ndjson', false)).toContain('"id":9007199254740993');
  });

  it.each(['table', 'json'] as const)('on a terminal, %s shows control characters as escapes, the JSON value unchanged', (format) => {
    const shown = streamed(format, true);
    expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(shown).toContain('\\u009b\\u202e');
    expect(JSON.parse(shown)).toEqual(JSON.parse(stringifyJson(PAGES.flat())));
  });

  it('on a terminal, ndjson shows them as escapes too, each line the same JSON value', () => {
    const lines = streamed('ndjson', true).trimEnd().split('\n');
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(lines.map((line) => JSON.parse(line))).toEqual(PAGES.flat().map((item) => JSON.parse(stringifyJson(item))));
  });
});

describe('what a stopped --paginate says', () => {
  it('counts items, and the command repeats the -H header names (not their values) and the globals, quoted for a shell', () => {
    expect(listingProgress(13, 1200, 'item')).toBe('page 13, 1,200 items so far');
    const paginate = { headers: ["X-Note: it's", 'X-Session-Token:s3cr3t'], profile: 'work', output: 'ndjson', query: '[].id' };
    const command = continuePaginateCommand(paginate, '/orders?page=3');
    expect(command).toBe(`petctl api --paginate '/orders?page=3' -H 'X-Note: <value>' -H 'X-Session-Token: <value>' -p work -o ndjson --query '[].id'`);
    expect(hiddenValuesNote(paginate)).toBe('(-H values are shown as <value> so that no secret is printed; put them back before running it)');
    expect(hiddenValuesNote({ ...paginate, headers: [] })).toBeUndefined();
    expect(stopLine(4, 3, command, 'item')).toBe(`stopped after 4 items (page 3); continue with: ${command}`);
    expect(stopLine(1, 1, command)).toBe(`stopped after 1 animal (page 1); continue with: ${command}`);
  });
});
