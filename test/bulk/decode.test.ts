import { expect, it } from 'vitest';
import { type InputEncoding, UndecodableError, decodeText } from '../../src/bulk/decode';
import { sniffDelimiter } from '../../src/bulk/formats/csv';
import { chunked, failure, rows } from './read-rows';

/** The text decoded, and the error it stopped with, if any. */
async function decoded(bytes: Buffer, size: number, encoding?: InputEncoding): Promise<{ text: string; error?: UndecodableError }> {
  let text = '';
  try {
    for await (const piece of decodeText(chunked(bytes, size), encoding)) text += piece;
  } catch (error) {
    expect(error).toBeInstanceOf(UndecodableError);
    return { text, error: error as UndecodableError };
  }
  return { text };
}

const SIZES = [1, 2, 3, 5, 7, 1023, 1024, 1025, 4096];
/** Long enough that the 1 KB pieces split characters at many offsets. */
const LONG = `${'é🐶€a'.repeat(700)}\uFFFD${'Zoë'.repeat(300)}`;

it('UTF-8 split anywhere, a BOM dropped, a real U+FFFD kept', async () => {
  for (const size of SIZES) {
    expect((await decoded(Buffer.from(`\uFEFF${LONG}`), size)).text, `chunks of ${size}`).toBe(LONG);
  }
});

const cuts = [[0xeb, 0x20], [0xe2, 0x82, 0x41], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0x80]];
it.each(cuts)('stops at the first byte that is not UTF-8 (0x%s), after yielding everything before it', async (...bad) => {
  const before = LONG.slice(0, 1500);
  const hex = bad[0]!.toString(16).toUpperCase();
  const message = `not UTF-8 (byte 0x${hex}); save the file as "CSV UTF-8", or give --encoding windows-1252`;
  const bytes = Buffer.concat([Buffer.from(before), Buffer.from(bad), Buffer.from('after')]);
  for (const size of SIZES) {
    const { text, error } = await decoded(bytes, size);
    expect(text, `chunks of ${size}`).toBe(before);
    expect([error?.byte, error?.message]).toEqual([bad[0], message]);
  }
});

it('UTF-16 by its BOM, either byte order, split anywhere, a real U+FFFD kept; a lone surrogate stops it', async () => {
  for (const bigEndian of [false, true]) {
    const bytes = Buffer.from(`\uFEFF${LONG}`, 'utf16le');
    if (bigEndian) bytes.swap16();
    for (const size of SIZES) expect((await decoded(bytes, size)).text, `chunks of ${size}`).toBe(LONG);
    const broken = Buffer.from(`\uFEFFab\uD800cd`, 'utf16le');
    if (bigEndian) broken.swap16();
    const { text, error } = await decoded(broken, 3);
    expect(text).toBe('ab');
    expect(error?.message).toMatch(bigEndian ? /^not UTF-16BE: / : /^not UTF-16LE: /);
  }
});

it('--encoding wins over no BOM: windows-1252, and latin1 read as windows-1252', async () => {
  const bytes = Buffer.from('Zo\xeb Caf\xe9 \x80', 'latin1');
  expect((await decoded(bytes, 2, 'windows-1252')).text).toBe('Zoë Café €');
  expect((await decoded(bytes, 2, 'latin1')).text).toBe('Zoë Café €');
  expect((await decoded(Buffer.from([0xef, 0xbb, 0xbf, 0x41]), 1, 'utf-8')).text).toBe('A');
});

it('follows Unicode table 3-7: overlongs, surrogates, values past U+10FFFF, an end inside a character', async () => {
  const illFormed: Array<[number[], string, number]> = [
    [[0x61, 0xe0, 0x80, 0x80], 'a', 0xe0],
    [[0xf4, 0x90, 0x80, 0x80], '', 0xf4],
    [[0x61, 0xf0, 0x9f, 0x90], 'a', 0xf0],
  ];
  for (const [bytes, text, byte] of illFormed) {
    const result = await decoded(Buffer.from(bytes), 1);
    expect(result.text).toBe(text);
    expect(result.error?.byte).toBe(byte);
  }
});

it.each([
  ['name,categoryId\n\nA,1\n"B\nx~",2\n', /^line 5 \(row 2\): not UTF-8 \(byte 0xFF\)/],
  ['na~me,categoryId\nA,1\n', /^line 1: not UTF-8/],
  ['{"name":"A","categoryId":1}\n\n{"name":"~"}\n', /^line 3 \(row 2\): not UTF-8/],
  ['[{"name":"A","categoryId":1},\n{"name":"~"}]', /^line 2 \(row 2\): not UTF-8/],
  ['\n\n~', /^line 3: not UTF-8/],
])('readRows names the line of the byte and the row in progress, in every format: %j', async (text, message) => {
  expect((await failure(Buffer.from(text.replace('~', '\xff'), 'latin1'))).message).toMatch(message);
});

it.each([
  ['name,categoryId,status', ','],
  ['name;categoryId;status', ';'],
  ['"a,b";categoryId', ';'],
  ['name;categoryId,status', ','],
  ['name\tcategoryId', '\t'],
  ['name\tcategory;Id', ';'],
  ['name', ','],
])('sniffDelimiter: the header %j → %j', (header, delimiter) => {
  expect(sniffDelimiter(header)).toBe(delimiter);
});

it.each([
  ['sep=;\nname;categoryId\n"A;a";1\n', {}],
  ['SEP=|\r\nname|categoryId\r\nA;a|1\r\n', {}],
  ['sep=;\nname,categoryId\nA;a,1\n', { delimiter: ',' }],
])("a first line sep=<char> (Excel's) names the delimiter, unless --delimiter does, and the header follows it: %j", async (text, options) => {
  expect(await rows(text, 'csv', 7, options)).toEqual([{ row: 1, line: 3, newPet: { name: 'A;a', categoryId: 1 } }]);
});
