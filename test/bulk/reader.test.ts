import { expect, it } from 'vitest';
import { type InputRow, formatFromExtension } from '../../src/bulk/reader';
import { failure, rows } from './read-rows';

const valid = (row: InputRow) => ({ row: row.row, line: row.line, newPet: row.newPet });
const invalid = (row: InputRow) => ({ row: row.row, line: row.line, reason: row.reason });

it('format detection: by extension (any case), else by content ([ JSON, { NDJSON, else CSV); forced wins', async () => {
  const files = ['a/pets.JSON', 'pets.ndjson', 'pets.jsonl', 'pets.Csv', 'pets.txt', '-'];
  expect(files.map(formatFromExtension)).toEqual(['json', 'ndjson', 'ndjson', 'csv', undefined, undefined]);
  expect((await rows('\n  [{"name":"A","categoryId":1}]')).map(valid)).toEqual([{ row: 1, line: 2, newPet: { name: 'A', categoryId: 1 } }]);
  expect((await rows('{"name":"A","categoryId":1}\n{"name":"B","categoryId":2}')).map((r) => r.newPet?.name)).toEqual(['A', 'B']);
  expect((await rows('name,categoryId\nA,1\n')).map((r) => r.newPet?.name)).toEqual(['A']);
  const error = await failure('{"name":"A","categoryId":1}\n', 'json');
  expect(error.message).toMatch(/^line 1: not a JSON array.*--format ndjson/);
});

it('JSON array: numbers rows from 1 and gives each the line where it starts', async () => {
  const text = '[\n  {"name": "A", "categoryId": 1},\n  {\n    "name": "B",\n    "categoryId": 2, "status": "sold"\n  }\n]\n';
  expect((await rows(text)).map(valid)).toEqual([
    { row: 1, line: 2, newPet: { name: 'A', categoryId: 1 } },
    { row: 2, line: 3, newPet: { name: 'B', categoryId: 2, status: 'sold' } },
  ]);
});

it('JSON array: keeps int64 exact and ignores brackets, commas and escaped quotes inside strings', async () => {
  const text = '[{"name":"a,]}[{\\"b\\"","categoryId":9007199254740993}]';
  expect((await rows(text, undefined, 3)).map(valid)).toEqual([{ row: 1, line: 1, newPet: { name: 'a,]}[{"b"', categoryId: 9007199254740993n } }]);
});

it('JSON array: reports invalid rows with their reasons, and the valid ones still come through, names trimmed', async () => {
  // A name of spaces is empty, as for a single add: the schema trims names.
  const text = '[{"name":"   ","categoryId":1},\n{"name":"B","categoryId":"x"},\n{"name":"C","categoryId":1,"id":4},\n{"name":"D","categoryId":1,"status":"lost"},\n{"categoryId":1},\n7,\n{"name":"G","categoryId":1.5},\n{"name":" H ","categoryId":2}]';
  const result = await rows(text);
  expect(result.filter((r) => r.reason).map(invalid)).toEqual([
    { row: 1, line: 1, reason: 'name: must not be empty' },
    { row: 2, line: 2, reason: 'categoryId must be a whole number, not "x"' },
    { row: 4, line: 4, reason: 'status must be one of available, pending, sold, not "lost"' },
    { row: 5, line: 5, reason: 'name: required' },
    { row: 6, line: 6, reason: 'must be an object {"name":…,"categoryId":…,"status":…}' },
    { row: 7, line: 7, reason: 'categoryId must be a whole number, not 1.5' },
  ]);
  expect(result.at(-1)).toEqual({ row: 8, line: 8, newPet: { name: 'H', categoryId: 2 } });
  // A field that is not sent is ignored, not an error.
  expect(result[2]).toEqual({ row: 3, line: 3, newPet: { name: 'C', categoryId: 1 } });
});

it('JSON array: an element not JSON is an invalid row, an extra comma a missing one; bad files refused', async () => {
  const result = await rows('[{"name":"A","categoryId":1},\n{name:"B"},\n,\n{"name":"C","categoryId":1}]');
  expect(result.map((r) => [r.row, r.line, r.reason === undefined ? 'ok' : r.reason.replace(/ \(.*/, '')])).toEqual([
    [1, 1, 'ok'],
    [2, 2, 'not valid JSON'],
    [3, 3, 'missing value'],
    [4, 4, 'ok'],
  ]);
  // A file that is not JSON at all is refused; so are a truncated array and text after the array.
  expect((await failure('hello', 'json')).message).toMatch(/^line 1: not a JSON array/);
  expect((await failure('[{"name":"A","categoryId":1},\n{"name":"B","categ')).message).toBe(
    'line 2 (row 2): the input ends inside this row (truncated?); the JSON array is not closed',
  );
  expect((await failure('[{"name":"A","categoryId":1},\n')).message).toMatch(/^line 2: the input ends before the JSON array is closed/);
  expect((await failure('[{"name":"A","categoryId":1}]\n]')).message).toMatch(/^line 2: unexpected "\]" after the end/);
});

it('NDJSON: a row a line; blank lines skipped but counted; CRLF, a BOM fine; a cut last line invalid', async () => {
  const text = '\ufeff{"name":"A","categoryId":1}\r\n\r\n   \r\n{"name":"B","categoryId":2,"status":"pending"}\r\n';
  expect((await rows(text, undefined, 5)).map(valid)).toEqual([
    { row: 1, line: 1, newPet: { name: 'A', categoryId: 1 } },
    { row: 2, line: 4, newPet: { name: 'B', categoryId: 2, status: 'pending' } },
  ]);
  const result = await rows('{"name":"A","categoryId":1}\n{"name":"B","cat', 'ndjson');
  expect(result.map((r) => r.reason?.slice(0, 14))).toEqual([undefined, 'not valid JSON']);
  expect(result[1]).toMatchObject({ row: 2, line: 2 });
});

it('NDJSON: a row longer than 1 MiB is invalid without being held whole', async () => {
  const big = `{"name":"${'x'.repeat(1_200_000)}","categoryId":1}`;
  const result = await rows(`${big}\n{"name":"B","categoryId":2}\n`, 'ndjson', 64 * 1024);
  expect(result.map((r) => [r.row, r.line, r.reason ?? r.newPet?.name])).toEqual([
    [1, 1, 'longer than 1024 KiB'],
    [2, 2, 'B'],
  ]);
});

it('a record longer than 1 MiB is invalid as too long in CSV too, even when its line ends in the text piece that crosses 1 MiB', async () => {
  const result = await rows(`name,categoryId\n${'x'.repeat(1024 * 1024 + 5)},1\nB,2\n`, 'csv', 64 * 1024);
  expect(result.map((r) => [r.row, r.line, r.reason ?? r.newPet?.name])).toEqual([
    [1, 2, 'longer than 1024 KiB'],
    [2, 3, 'B'],
  ]);
});

it('CSV: quotes, commas, newlines in fields; a BOM, CRLF, blank lines, unicode; rows know their line', async () => {
  const text = 'name,categoryId,status\n"Rex, the ""good"" dog",1,available\n"two\nlines",2,sold\nPlain,3,\n';
  expect((await rows(text, undefined, 4)).map(valid)).toEqual([
    { row: 1, line: 2, newPet: { name: 'Rex, the "good" dog', categoryId: 1, status: 'available' } },
    { row: 2, line: 3, newPet: { name: 'two\nlines', categoryId: 2, status: 'sold' } },
    { row: 3, line: 5, newPet: { name: 'Plain', categoryId: 3 } },
  ]);
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Name,CATEGORY_ID,Status\r\n\r\nBé 🐶,1,pending\r\n  \r\n"Łatka\r\nżółw",2,\r\nМурка,3,sold', 'utf8')]);
  // Chunks of 3 bytes split the BOM, the emoji and CRLF pairs.
  expect((await rows(bom, undefined, 3)).map(valid)).toEqual([
    { row: 1, line: 3, newPet: { name: 'Bé 🐶', categoryId: 1, status: 'pending' } },
    { row: 2, line: 5, newPet: { name: 'Łatka\r\nżółw', categoryId: 2 } },
    { row: 3, line: 7, newPet: { name: 'Мурка', categoryId: 3, status: 'sold' } },
  ]);
});

it('CSV: a CR alone ends a line, as Excel\'s "CSV (Macintosh)" writes, beside CRLF and LF; not inside quotes', async () => {
  const text = 'name,categoryId,status\rA,1,available\r\rB,2,\r\n"C\rD",3,sold\nE,4,\r';
  for (const chunk of [1, 2, 3, 7]) {
    expect((await rows(text, undefined, chunk)).map(valid), `chunks of ${chunk}`).toEqual([
      { row: 1, line: 2, newPet: { name: 'A', categoryId: 1, status: 'available' } },
      { row: 2, line: 4, newPet: { name: 'B', categoryId: 2 } },
      { row: 3, line: 5, newPet: { name: 'C\rD', categoryId: 3, status: 'sold' } },
      { row: 4, line: 6, newPet: { name: 'E', categoryId: 4 } },
    ]);
  }
});

it('CSV: a whole number beyond int64 is invalid, and its message names the range; int64 stays exact', async () => {
  const range = 'must be a whole number from -9223372036854775808 to 9223372036854775807';
  const text = 'name,categoryId\nA,9223372036854775807\nB,12x\nC,\n';
  const csv = await rows(`${text}D,9223372036854775808\nE,-9223372036854775809`);
  expect(csv.map((r) => r.reason ?? r.newPet?.categoryId)).toEqual([
    9223372036854775807n,
    'categoryId must be a whole number, not "12x"',
    'categoryId: required',
    `categoryId ${range}, not 9223372036854775808`,
    `categoryId ${range}, not -9223372036854775809`,
  ]);
  const ndjson = await rows('{"name":"A","categoryId":9223372036854775808}\n');
  expect(ndjson.map((r) => r.reason)).toEqual([`categoryId ${range}, not 9223372036854775808`]);
});

it('a status in any case and with spaces around is the lower-case word; any other word is invalid, repeated as typed', async () => {
  const csv = await rows('name,categoryId,status\nA,1,Available\nB,1,SOLD\nC,1, pending \nD,1,Sould\n');
  expect(csv.map((r) => r.newPet?.status ?? r.reason)).toEqual(['available', 'sold', 'pending', 'status must be one of available, pending, sold, not "Sould"']);
  const json = await rows('[{"name":"A","categoryId":1,"status":"PENDING"},{"name":"B","categoryId":1,"status":" Sold "},{"name":"C","categoryId":1,"status":5}]');
  expect(json.map((r) => r.newPet?.status ?? r.reason)).toEqual(['pending', 'sold', 'status must be one of available, pending, sold, not 5']);
});

it('CSV: wrong field counts and bad quoting are invalid rows; the rows after them are read normally', async () => {
  // The last: a quote never closed (a truncated file).
  const result = await rows('name,categoryId,status\nA,1,available,extra\n"B"x,2,sold\nC,3\nD,4,pending\n"E is cut');
  expect(result.map(invalid)).toEqual([
    { row: 1, line: 2, reason: 'expected 3 fields (name,categoryId,status), found 4' },
    { row: 2, line: 3, reason: 'bad quoting: a closing quote must end its field (write "" for a quote inside one)' },
    { row: 3, line: 4, reason: 'expected 3 fields (name,categoryId,status), found 2' },
    { row: 4, line: 5, reason: undefined },
    { row: 5, line: 6, reason: 'a quoted field is not closed (truncated file?)' },
  ]);
});

it('CSV: a stray quote left open takes every line after it: the row says how many, rather than "truncated" alone', async () => {
  const after = Array.from({ length: 1200 }, (_, i) => `S${i},1,\r\n`).join('');
  const text = `name,categoryId,status\r\nA,1,\r\n"B,2,\r\n${after}`;
  // Also past the 1 MiB a row may have: the open quote is the reason, not the length.
  for (const rest of [after, `"${'x'.repeat(1 << 20)}",1,\r\n${after}`]) {
    expect((await rows(`name,categoryId,status\r\nA,1,\r\n"B,2,\r\n${rest}`, undefined, 4096)).map(invalid)).toEqual([
      { row: 1, line: 2, reason: undefined },
      { row: 2, line: 3, reason: `a quoted field is not closed: the ${rest.split('\n').length - 1} lines after it, ` +
        'to the end of the input, are read as part of it (a stray quote, or a truncated file?)' },
    ]);
  }
  expect((await rows(text.trimEnd(), undefined, 5)).at(-1)!.reason).toMatch(/^a quoted field is not closed: the 1200 lines after it/);
});

it('CSV: thousands of rows: numbering, unicode, a bad row and a very long one in a batch, each read alone', async () => {
  const records = ['name,categoryId,status'];
  const expected: Array<[number, number, unknown]> = [];
  let line = 2;
  for (let i = 0; i < 3000; i++) {
    let name = `Bé 🐶 ${i}`;
    let record = `${name},${i},`;
    if (i === 700) {
      name = 'bad quoting: a closing quote must end its field (write "" for a quote inside one)';
      record = '"cut"x,1,sold';
    } else if (i === 1500) {
      name = 'ż'.repeat(30_000);
      record = `"${name}",2,`;
    } else if (i % 97 === 0) {
      name = `Łatka ${i}\r\nline two`;
      record = `"${name}",${i},pending\r\n`; // and a blank line after it
    }
    records.push(record);
    expected.push([i + 1, line, name]);
    line += record.split('\n').length;
  }
  const result = await rows(records.join('\r\n'), 'csv', 4096);
  expect(result.map((r) => [r.row, r.line, r.reason ?? r.newPet?.name])).toEqual(expected);
});

it('CSV: an empty array and a header alone are zero rows', async () => {
  expect([await rows('[ ]'), await rows('name,categoryId,status\r\n')]).toEqual([[], []]);
});

it.each(['', '   \n\n', '\ufeff'])('an empty input, %j, is refused in every format', async (text) => {
  for (const format of [undefined, 'json', 'ndjson', 'csv'] as const) {
    expect((await failure(text, format)).message).toBe('the input is empty: no rows to import');
  }
});

it('CSV: other columns are ignored and named once each; the id column is matched as column names are, trimmed, never sent', async () => {
  const ignored: string[] = [];
  const result = await rows('Intake No ,Breed,name,categoryId,Notes\nA-1,Lab,Rex,1,x\n A-2 ,Pug,Bella,2,\n,Cat,Tom,3,\n', undefined, 7, { idColumn: 'intake no', onIgnored: (name) => ignored.push(name) });
  expect(ignored).toEqual(['Breed', 'Notes']);
  expect(result).toEqual([
    { row: 1, line: 2, newPet: { name: 'Rex', categoryId: 1 }, rowId: 'A-1' },
    { row: 2, line: 3, newPet: { name: 'Bella', categoryId: 2 }, rowId: 'A-2' },
    { row: 3, line: 4, reason: 'Intake No: required (the --id-column)' },
  ]);
  // An --id-column the header lacks refuses the file.
  await expect(rows('name,categoryId\nRex,1\n', undefined, 7, { idColumn: 'Intake' })).rejects.toThrow('line 1: the CSV header has no column "Intake" (--id-column); its columns: name,categoryId');
});

it('JSON and NDJSON: other fields are ignored and named once; the id field may be a string or a number', async () => {
  const ignored: string[] = [];
  const result = await rows('{"name":"Rex","categoryId":1,"intake":17,"breed":"Lab"}\n{"name":"Bo","categoryId":1,"intake":"B-2","breed":"Pug","notes":""}\n{"name":"Cy","categoryId":1,"intake":{}}\n', 'ndjson', 7, { idColumn: 'Intake', onIgnored: (name) => ignored.push(name) });
  expect(ignored).toEqual(['breed', 'notes']);
  expect(result.map((row) => row.rowId ?? row.reason)).toEqual(['17', 'B-2', 'Intake: must be a string or a number (the --id-column)']);
});
