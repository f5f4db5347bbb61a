import { beforeAll, describe, expect, it } from 'vitest';
import { loadTable } from '../../src/output/records';
import { shellWord } from '../../src/output/formats';
import {
  ListingProgress,
  continueCommand,
  continuePaginateCommand,
  hiddenValuesNote,
  listingProgress,
  openItemStream,
  openListingStream,
  stopLine,
} from '../../src/output/listing';
import { formatCounted } from '../../src/output/waits';
import { renderPets } from '../../src/output/pets';
import { stringifyJson } from '../../src/schemas/json';
import type { OutputFormat } from '../../src/globals';
import type { Pet } from '../../src/schemas/pet';
import { InvalidResponseError, NetworkError, NotFoundError, type PetctlError, RejectedError } from '../../src/errors';
import { fakeContext } from '../helpers/terminal';

// A terminal's table is drawn by a renderer loaded on demand (records.ts).
beforeAll(loadTable);

/** `pets list --all` and `api --paginate` written page by page, against the whole list rendered at once. */

const PIPED = { tty: false, level: 0 as const };
const pet = (id: number | bigint, name = `Pet ${String(id)}`): Pet => ({ id, name, categoryId: 1, status: 'available' }) as Pet;
const PAGES: Pet[][] = [[pet(1), pet(2, 'a "quoted", name\nwith a line break')], [], [pet(9007199254740993n)]];

function streamed(format: OutputFormat, pages: Pet[][], options = PIPED): { text: string; chunks: number } {
  let text = '';
  let chunks = 0;
  const stream = openListingStream(format, options, (chunk) => {
    text += chunk;
    chunks += 1;
  });
  for (const page of pages) stream.write(page);
  stream.end();
  return { text, chunks };
}

describe('openListingStream', () => {
  it.each(['json', 'ndjson', 'csv', 'table'] as const)('%s: page by page, byte for byte what the whole list renders as; no animals at all renders as an empty list does', (format) => {
    expect(streamed(format, PAGES).text).toBe(renderPets(PAGES.flat(), format, PIPED));
    expect(streamed(format, [[], []]).text).toBe(renderPets([], format, PIPED));
  });

  it("json writes each page as it comes, the array valid however early it ends; a terminal's table writes once", () => {
    let text = '';
    const stream = openListingStream('json', PIPED, (chunk) => (text += chunk));
    stream.write([pet(1)]);
    expect(text).toContain('"id": 1');
    stream.write([pet(9007199254740993n)]);
    stream.end();
    expect(text).toContain('"id": 9007199254740993');
    expect(JSON.parse(text)).toHaveLength(2);
    // A table on a terminal waits for every row to size its columns: one write, at the end.
    const tty = { tty: true, level: 0 as const, width: 80 };
    const table = streamed('table', PAGES, tty);
    expect(table.chunks).toBe(1);
    expect(table.text).toBe(renderPets(PAGES.flat(), 'table', tty));
  });
});

describe('openItemStream (api --paginate)', () => {
  const ITEMS: unknown[][] = [[{ id: 1, tags: ['a', 'b'] }, 'a string\u001b[31m\u007f\u009b\u202e', null], [], [{ id: 9007199254740993n, nested: { deep: [1, { x: 2 }] } }]];

  function items(format: OutputFormat, tty: boolean, pages: unknown[][] = ITEMS): string {
    let text = '';
    const stream = openItemStream(format, tty, (chunk) => (text += chunk));
    for (const page of pages) stream.write(page);
    stream.end();
    return text;
  }

  it.each([['json', false], ['table', false]] as const)('%s (terminal: %s): one JSON array, byte for byte stringifyJson of every item', (format, tty) => {
    expect(items(format, tty)).toBe(`${stringifyJson(ITEMS.flat(), 2)}\n`);
    expect(items(format, tty, [[], []])).toBe('[]\n');
    // ndjson: one item per line, int64-exact.
    expect(items('ndjson', false)).toBe(`${ITEMS.flat().map((item) => stringifyJson(item)).join('\n')}\n`);
    expect(items('ndjson', false)).toContain('"id":9007199254740993');
  });

  it.each(['table', 'json', 'ndjson'] as const)('on a terminal, %s shows control characters as escapes, the JSON values unchanged', (format) => {
    const shown = items(format, true);
    expect(shown).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(shown).toContain('\\u007f\\u009b\\u202e');
    const values = format === 'ndjson' ? shown.trimEnd().split('\n').map((line) => JSON.parse(line)) : JSON.parse(shown);
    expect(values).toEqual(JSON.parse(stringifyJson(ITEMS.flat())));
  });
});

describe('what a stopped listing says', () => {
  it('counts with thousands separators, whatever the locale', () => {
    const counts = [0, 999, 1200, 1234567].map((n) => formatCounted(n, 'row'));
    expect(counts).toEqual(['0 rows', '999 rows', '1,200 rows', '1,234,567 rows']);
  });

  it('quotes a word only when a shell would read it otherwise, and a quote inside as \'\\\'\'', () => {
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord('')).toBe("''");
  });

  it('repeats the filters, the service and the output the user gave, then the token', () => {
    const command = continueCommand({ limit: 10, status: 'sold', profile: 'work', output: 'json', query: '[].id' }, '/v1/pets?after=5');
    expect(command).toBe("petctl pets list --all --limit 10 --status sold -p work -o json --query '[].id' --starting-token '/v1/pets?after=5'");
    expect(continueCommand({ output: 'table' }, '/v1/pets?after=5')).toBe("petctl pets list --all --starting-token '/v1/pets?after=5'");
    expect(stopLine(1200, 13, 'petctl …')).toBe('stopped after 1,200 animals (page 13); continue with: petctl …');
  });

  it('--paginate counts items, and the command repeats the -H header names (not their values) and the globals, quoted for a shell', () => {
    expect(listingProgress(13, 1200, 'item')).toBe('page 13, 1,200 items so far');
    const paginate = { headers: ["X-Note: it's", 'X-Session-Token:s3cr3t'], profile: 'work', output: 'ndjson', query: '[].id' };
    const command = continuePaginateCommand(paginate, '/orders?page=3');
    expect(command).toBe(`petctl api --paginate '/orders?page=3' -H 'X-Note: <value>' -H 'X-Session-Token: <value>' -p work -o ndjson --query '[].id'`);
    expect(hiddenValuesNote(paginate)).toBe('(-H values are shown as <value> so that no secret is printed; put them back before running it)');
    expect(hiddenValuesNote({ ...paginate, headers: [] })).toBeUndefined();
    expect(stopLine(4, 3, command, 'item')).toBe(`stopped after 4 items (page 3); continue with: ${command}`);
    expect(stopLine(1, 1, command)).toBe(`stopped after 1 animal (page 1); continue with: ${command}`);
  });

  it('offers to continue past what a later run may get through, never past an answer that would come again', (t) => {
    const { ctx, io } = fakeContext(t);
    const stop = (error: PetctlError) => new ListingProgress(ctx, false).stopped(error, () => 'petctl …');
    // The same request would get the same answer: a 404, a 400, an answer not as the specification says.
    stop(new NotFoundError('no such path: /v1/other', { code: 'not_found', status: 404 }));
    stop(new RejectedError('limit must be an integer from 1 to 100', { code: 'invalid_parameter', status: 400 }));
    stop(new InvalidResponseError('page 3 is a JSON object', 200));
    expect(io.stderr.text()).toBe('');
    stop(new NetworkError('connection reset', { sent: true }));
    expect(io.stderr.text()).toBe('stopped after 0 animals (page 1); continue with: petctl …\n');
  });
});
