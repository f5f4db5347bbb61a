import { beforeAll, describe, expect, it } from 'vitest';
import { loadTable } from '../../src/output/records';
import { openListingStream } from '../../src/output/listing-stream';
import { continueCommand, shellWord, stopLine } from '../../src/output/listing-stop';
import { formatCount } from '../../src/output/waits';
import { renderPets } from '../../src/output/pets';
import type { OutputFormat } from '../../src/output/format';
import type { Pet } from '../../src/schemas/pet';

// A terminal's table is drawn by a renderer loaded on demand (records.ts).
beforeAll(loadTable);

/** The listing written page by page, against renderPets of the same animals at once. */

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
  it.each(['json', 'ndjson', 'csv', 'table'] as const)('%s: page by page, byte for byte what the whole list renders as', (format) => {
    expect(streamed(format, PAGES).text).toBe(renderPets(PAGES.flat(), format, PIPED));
  });

  it.each(['json', 'ndjson', 'csv', 'table'] as const)('%s: no animals at all renders as an empty list does', (format) => {
    expect(streamed(format, [[], []]).text).toBe(renderPets([], format, PIPED));
  });

  it('json writes each page as it comes, and the array stays valid however early it ends', () => {
    let text = '';
    const stream = openListingStream('json', PIPED, (chunk) => (text += chunk));
    stream.write([pet(1)]);
    expect(text).toContain('"id": 1');
    stream.write([pet(9007199254740993n)]);
    stream.end();
    expect(text).toContain('"id": 9007199254740993');
    expect(JSON.parse(text)).toHaveLength(2);
  });

  it('a table on a terminal waits for every row to size its columns: one write, at the end', () => {
    const tty = { tty: true, level: 0 as const, width: 80 };
    const { text, chunks } = streamed('table', PAGES, tty);
    expect(chunks).toBe(1);
    expect(text).toBe(renderPets(PAGES.flat(), 'table', tty));
  });
});

describe('what a stopped listing says', () => {
  it('counts with thousands separators, whatever the locale', () => {
    expect([0, 999, 1200, 1234567].map(formatCount)).toEqual(['0', '999', '1,200', '1,234,567']);
  });

  it('quotes a word only when a shell would read it otherwise, and a quote inside as \'\\\'\'', () => {
    expect(shellWord('/v1/pets?limit=10&after=20')).toBe("'/v1/pets?limit=10&after=20'");
    expect(shellWord('available')).toBe('available');
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord('')).toBe("''");
  });

  it('repeats the filters, the service and the output the user gave, then the token', () => {
    const command = continueCommand({ limit: 10, status: 'sold', profile: 'work', output: 'json', query: '[].id' }, '/v1/pets?after=5');
    expect(command).toBe("petctl pets list --all --limit 10 --status sold -p work -o json --query '[].id' --starting-token '/v1/pets?after=5'");
    expect(continueCommand({ output: 'table' }, '/v1/pets?after=5')).toBe("petctl pets list --all --starting-token '/v1/pets?after=5'");
    expect(stopLine(1200, 13, 'petctl …')).toBe('stopped after 1,200 animals (page 13); continue with: petctl …');
  });
});
