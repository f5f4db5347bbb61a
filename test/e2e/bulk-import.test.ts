import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCleanError, jsonError, ok, setupE2e, writeInput } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';
import type { Reply } from '../helpers/scripted-server';
import { IMPORT_SUMMARY, importSummary, ndjsonRows, postedNames, rowsFile } from '../helpers/import-run';

/** `petctl pets add --file` against a scripted server that creates animals (ids from 100). */

const CSV = 'name,categoryId,status\r\n"Rex, the ""good"" dog",1,available\r\n\r\nBé 🐶,9007199254740993,\r\n"two\r\nlines",3,sold\r\n';

describe.concurrent('pets add --file', () => {
  it('imports a CSV: one POST per row with the exact body, summary on stderr, nothing on stdout, exit 0; a rerun skips every row; -o ndjson, -o json, --journal', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const file = writeInput(configDir, 'shelter.csv', CSV);

    const result = await ok(petctl(['pets', 'add', '--file', file]));
    expect(result.stdout).toBe('');
    const first = importSummary(result);
    expect(first).toMatchObject({ created: 3, skipped: 0, rejected: 0, invalid: 0, unknown: 0 });
    // Its headers (key, Accept, User-Agent, JSON): test/spec/authentication.test.ts, test/spec/adding.test.ts.
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(Array(3).fill('POST /v1/pets'));
    expect(server.requests.map((r) => r.body).sort()).toEqual(
      [
        '{"name":"Rex, the \\"good\\" dog","categoryId":1,"status":"available"}',
        '{"name":"Bé 🐶","categoryId":9007199254740993}',
        '{"name":"two\\r\\nlines","categoryId":3,"status":"sold"}',
      ].sort(),
    );
    expect(path.dirname(path.dirname(first.journal))).toBe(configDir);
    expect(fs.statSync(first.journal).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(first.journal)).mode & 0o777).toBe(0o700);

    const again = await ok(petctl(['pets', 'add', '--file', file, '-o', 'ndjson']));
    expect(server.requests).toHaveLength(3);
    expect(importSummary(again)).toMatchObject({ created: 0, skipped: 3, journal: first.journal });
    const skipped = ndjsonRows(again.stdout);
    expect(skipped.map((row) => [row.row, row.line, row.ok, row.skipped])).toEqual([
      [1, 2, true, 'already_created'],
      [2, 4, true, 'already_created'],
      [3, 5, true, 'already_created'],
    ]);
    expect(Object.keys(skipped[0]!)).toEqual(['row', 'line', 'ok', 'skipped', 'pet', 'at']);
    for (const row of skipped) expect(new Date(row.at as string).toISOString()).toBe(row.at);
    expect(again.stdout).toMatch(/"pet":\{"id":10\d,"name":"Bé 🐶","categoryId":9007199254740993\}/);

    // --journal chooses the journal, which keeps the rows of every file.
    const journal = ['--journal', path.join(configDir, 'mine.journal')];
    const json = writeInput(configDir, 'pets.json', '[\n{"name":"A","categoryId":1},\n{"name":"B","categoryId":9223372036854775807,"status":"pending"}\n]');

    const ndjson = await petctl(['pets', 'add', '--file', json, '-o', 'ndjson', '--concurrency', '1', ...journal]);
    expect(ndjson.code, ndjson.stderr).toBe(0);
    expect(ndjson.stdout).toBe(
      '{"row":1,"line":2,"ok":true,"pet":{"id":103,"name":"A","categoryId":1}}\n' +
        '{"row":2,"line":3,"ok":true,"pet":{"id":104,"name":"B","categoryId":9223372036854775807,"status":"pending"}}\n',
    );

    const other = writeInput(configDir, 'more.json', '[{"name":"C","categoryId":3},{"name":"D","categoryId":4}]');
    const array = await ok(petctl(['pets', 'add', '--file', other, '--json', ...journal]));
    expect(JSON.parse(array.stdout)).toEqual([
      { row: 1, line: 1, ok: true, pet: expect.objectContaining({ name: 'C' }) },
      { row: 2, line: 1, ok: true, pet: expect.objectContaining({ name: 'D' }) },
    ]);
    expect(importSummary(await petctl(['pets', 'add', '--file', json, ...journal]))).toMatchObject({ created: 0, skipped: 2 });
    expect(postedNames(server.requests).slice(3)).toEqual(['A', 'B', 'C', 'D']);
  });

  it('reads NDJSON from standard input (jq -c ".[]" style); the same stdin again skips, through the same journal; the spool is removed', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const input = '{"name":"A","categoryId":1}\n\n{"name":"B","categoryId":2,"status":"sold"}\n';
    const tmp = fs.mkdtempSync(path.join(configDir, 'tmp-'));
    const env = { TMPDIR: tmp };

    const first = await ok(petctl(['pets', 'add', '--file', '-', '-o', 'ndjson'], { input, env }));
    expect(ndjsonRows(first.stdout).map((row) => [row.row, row.line])).toEqual(expect.arrayContaining([[1, 1], [2, 3]]));
    const second = await ok(petctl(['-q', 'pets', 'add', '--file', '-'], { input, env }));
    expect(second.stderr).toMatch(/^skipped 2 rows already created from standard input \(.*\n$/);
    const again = await petctl(['pets', 'add', '--file', '-', '--new'], { input, env });
    expect(importSummary(again)).toMatchObject({ created: 2, skipped: 0, journal: importSummary(first).journal });
    expect(postedNames(server.requests).sort()).toEqual(['A', 'A', 'B', 'B']);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('reads a pipe given as the file (a FIFO, as --file <(jq …) or /dev/stdin gives) once, kept as standard input is', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const fifo = path.join(configDir, 'rows.fifo');
    execFileSync('mkfifo', [fifo]);
    // Opening a FIFO to write waits for its reader: petctl.
    const writing = fs.promises.writeFile(fifo, 'name,categoryId\nA,1\nB,2\n');
    const result = await ok(petctl(['pets', 'add', '--file', fifo]));
    await writing;
    expect(importSummary(result)).toMatchObject({ created: 2, skipped: 0 });
    expect(postedNames(server.requests)).toEqual(['A', 'B']);
  });

  it('refuses a file with invalid rows whole (the first 20 on stderr, then a count; --dry-run too; --id-column\'s missing and twice-used ids), a missing file (2) and an empty one (6); nothing sent; --dry-run validates, counts what would be sent and what the journal marks done, sends nothing; exit 0', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const rows = ['name,categoryId,status', 'Good,1,available'];
    for (let i = 0; i < 25; i++) rows.push(`Bad${i},x${i},`);
    const result = await petctl(['pets', 'add', '--file', writeInput(configDir, 'bad.csv', `${rows.join('\n')}\n`)]);

    expect(result.code).toBe(6);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('line 3 (row 2): categoryId must be a whole number, not "x0"\n');
    expect(result.stderr).toMatch(/^\.\.\. and 5 more invalid rows \(25 in all\)\nerror: 25 invalid rows of 26; .*\(invalid_input\)$/m);

    const missing = await petctl(['pets', 'add', '--file', 'missing.csv']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read --file missing.csv: no such file');
    expectCleanError(missing);
    const empty = writeInput(configDir, 'e.ndjson', '\n  \n');
    expect(await petctl(['pets', 'add', '--file', empty])).toMatchObject({ code: 6, stderr: 'error: the input is empty: no rows to import (invalid_input)\n' });
    const asJson = await petctl(['pets', 'add', '--file', empty, '-o', 'json']);
    expect(asJson.code).toBe(6);
    expect(jsonError(asJson)).toEqual({ code: 'invalid_input', message: 'the input is empty: no rows to import', status: 0 });
    expect(server.requests).toHaveLength(0);

    const invalid = writeInput(configDir, 'invalid.csv', 'name,categoryId\nA,1\n,2\n');
    // The hint says which flags were given (its sentences: test/output/import-end.test.ts).
    const refused = await petctl(['pets', 'add', '--file', invalid, '--dry-run']);
    expect(refused).toMatchObject({ code: 6, stderr: expect.stringContaining('and leave out --dry-run') });
    const skipping = await petctl(['pets', 'add', '--file', invalid, '--dry-run', '--skip-invalid']);
    expect(skipping).toMatchObject({ code: 6, stderr: expect.stringContaining('hint: fix them; without --dry-run') });
    const ids = writeInput(configDir, 'intake.ndjson', '{"id":"A-1","name":"Rex","categoryId":1}\n{"name":"Bo","categoryId":1}\n{"id":"A-1","name":"Rexy","categoryId":1}\n{"id":7,"name":"Cy","categoryId":1}\n');
    const idsRefused = await petctl(['pets', 'add', '--file', ids, '--id-column', 'id']);
    expect(idsRefused.code).toBe(6);
    expect(idsRefused.stderr).toContain('line 2 (row 2): id: required (the --id-column)\n');
    expect(idsRefused.stderr).toContain('line 1 (row 1): id "A-1" is used twice (also line 3, row 3)\n');
    expect(idsRefused.stderr).toContain('line 3 (row 3): id "A-1" is used twice (also line 1, row 1)\n');
    expect(idsRefused.stderr).toMatch(/^error: 3 invalid rows of 4; nothing was sent \(invalid_input\)$/m);
    expect(server.requests).toHaveLength(0);
    const idsSkipped = await petctl(['pets', 'add', '--file', ids, '--id-column', 'id', '--skip-invalid']);
    expect(idsSkipped.code).toBe(6);
    expect(importSummary(idsSkipped)).toMatchObject({ created: 1, invalid: 3 });
    expect(postedNames(server.requests)).toEqual(['Cy']);

    const file = writeInput(configDir, 'pets.csv', 'name,categoryId\nA,1\nB,2\nC,3\n');

    const before = await ok(petctl(['pets', 'add', '--file', file, '--dry-run']));
    expect(before.stdout).toMatch(/^would send 3 of 3 rows: 0 already created, 0 with an unknown outcome, 0 invalid; journal .+\n$/);

    server.reply(creator(), creator({ firstId: 200 }), { destroy: true });
    const partial = await petctl(['pets', 'add', '--file', file, '--concurrency', '1']);
    expect(partial.code).toBe(7);
    const { journal } = importSummary(partial);
    const figures = await ok(petctl(['pets', 'add', '--file', file, '--dry-run', '-o', 'json']));
    expect(JSON.parse(figures.stdout)).toEqual({ dryRun: true, rows: 3, valid: 3, invalid: 0, wouldSend: 0, done: 2, unknown: 1, journal });
    expect(server.requests).toHaveLength(4);
  });

  it('--skip-invalid sends the valid rows and lists the failed ones (ndjson with the Error body as received, TSV, csv), exit 6; -q drops the summary, not the error; a rerun sends the rejected row again', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator({ reject: (name) => name === 'B' }));
    const file = writeInput(configDir, 'pets.csv', 'name,categoryId\nA,1\nB,2\n,3\n');

    const ndjson = await petctl(['pets', 'add', '--file', file, '--skip-invalid', '-o', 'ndjson']);
    expect(ndjson.code).toBe(6);
    expect(ndjson.stderr).toContain('line 4 (row 3): name: must not be empty\n');
    expect(ndjsonRows(ndjson.stdout)).toEqual(
      expect.arrayContaining([
        { row: 2, line: 3, ok: false, error: { code: 'invalid_category', message: 'no category for B', status: 400, field: 'categoryId' } },
        { row: 3, line: 4, ok: false, error: { code: 'invalid_row', message: 'name: must not be empty', status: 0 } },
      ]),
    );
    expect(importSummary(ndjson)).toMatchObject({ created: 1, rejected: 1, invalid: 1 });
    const lastLine = (stderr: string) => JSON.parse(stderr.trim().split('\n').at(-1)!) as object;
    expect(lastLine(ndjson.stderr)).toMatchObject({ code: 'rows_rejected', status: 0 });
    const onlyInvalid = writeInput(configDir, 'blank.ndjson', '{"name":"","categoryId":1}\n');
    expect(lastLine((await petctl(['pets', 'add', '--file', onlyInvalid, '--skip-invalid', '-o', 'ndjson'])).stderr)).toMatchObject({ code: 'invalid_row', status: 0 });

    const table = await petctl(['-q', 'pets', 'add', '--file', file, '--skip-invalid']);
    expect(table.code).toBe(6);
    expect(table.stderr).not.toMatch(IMPORT_SUMMARY);
    expect(table.stderr).toMatch(/^error: 1 row rejected by the server, 1 row invalid/m);
    expect(table.stdout).toBe('2\t3\tinvalid_category\t400\tno category for B\n3\t4\tinvalid_row\t0\tname: must not be empty\n');
    const csv = await petctl(['pets', 'add', '--file', file, '--skip-invalid', '-o', 'csv']);
    expect(csv.stdout).toBe('row,line,code,status,message\n2,3,invalid_category,400,no category for B\n3,4,invalid_row,0,name: must not be empty\n');
    expect(postedNames(server.requests)).toEqual(['A', 'B', 'B', 'B']);
  });

  it('--concurrency 256: 256 requests in flight and waiting after a 429, and stderr holds no Node warning, with or without -q', { timeout: 60_000 }, async (t) => {
    const create = creator();
    const slow: Reply = (request, res) => setTimeout(() => create(request, res), 100);
    const { server, configDir, petctl } = await setupE2e(t, slow);
    server.reply({ status: 429, headers: { 'retry-after': '1' }, body: { code: 'rate_limited', message: 'Too many requests', status: 429 }, delayMs: 150 });
    const file = rowsFile(configDir, 'many.ndjson', 300, 'many-');

    for (const quiet of [[], ['-q']]) {
      const result = await petctl([...quiet, 'pets', 'add', '--file', file, '--new', '--concurrency', '256']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/Warning|MaxListeners|\(node:\d+\)/);
    }
    expect(postedNames(server.requests).length).toBeGreaterThanOrEqual(2 * 300);
  });
});

it('a damaged journal: lines 4-7 zero-filled (a crashed disk): the rerun and --dry-run send nothing, say journal_damaged at line 4, exit 1, and leave it; moved aside, --new sends every row again', async (t) => {
  const rows = ['Rex', 'Bella', 'Max', 'Luna', 'Oliver', 'Milo'];
  const { server, configDir, petctl } = await setupE2e(t, creator());
  const file = writeInput(configDir, 'intake.csv', `name,categoryId\n${rows.map((name) => `${name},1`).join('\n')}\n`);
  const { journal } = importSummary(await petctl(['pets', 'add', '--file', file]));
  // The header and six rows' "sent" and "created" lines; 4 to 7 become zeros.
  const bytes = fs.readFileSync(journal);
  const starts = [0];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) starts.push(i + 1);
  expect(starts).toHaveLength(2 + 2 * rows.length);
  fs.writeFileSync(journal, bytes.fill(0, starts[3], starts[7]));
  const damaged = fs.readFileSync(journal);

  const message = `error: the journal ${journal} is damaged at line 4; rows it recorded may be sent twice. Move it aside and rerun with --new only if you know which animals exist (journal_damaged)`;
  for (const flags of [['--dry-run'], []]) {
    const result = await petctl(['pets', 'add', '--file', file, ...flags]);
    expectCleanError(result, 1);
    expect(result.stderr.split('\n')[0]).toBe(message);
  }
  const json = await petctl(['pets', 'add', '--file', file, '-o', 'json']);
  expect(json.code).toBe(1);
  expect(jsonError(json)).toMatchObject({ code: 'journal_damaged', status: 0 });
  expect(server.requests).toHaveLength(rows.length);
  expect(fs.readFileSync(journal).equals(damaged)).toBe(true);

  fs.renameSync(journal, `${journal}.damaged`);
  const fresh = await ok(petctl(['pets', 'add', '--file', file, '--new']));
  expect(importSummary(fresh)).toMatchObject({ created: rows.length, skipped: 0 });
  expect(server.requests).toHaveLength(2 * rows.length);
});
