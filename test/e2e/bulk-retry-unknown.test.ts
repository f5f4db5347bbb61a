import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type E2eSetup, ok, setupE2e, writeInput } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';
import { type RecordedRequest, type ScriptedServer, json } from '../helpers/scripted-server';
import { importSummary, ndjsonRows, postedNames } from '../helpers/import-run';

/** --retry-unknown against a scripted service that lists what it created and can drop the answer after creating
 * (what its lines and errors say: test/output/import-end.test.ts). */

const gets = (requests: RecordedRequest[]) => requests.filter((r) => r.method === 'GET');

/** An import whose first request's connection drops before the service takes it: that row is left "sent" (exit 7). */
async function loseFirstRow(server: ScriptedServer, petctl: E2eSetup['petctl'], file: string) {
  server.reply({ destroy: true });
  const first = await petctl(['pets', 'add', '--file', file, '--concurrency', '1']);
  expect(first.code).toBe(7);
  const journal = /journal (.+)$/m.exec(first.stderr)![1]!;
  return { journal, recorded: fs.readFileSync(journal, 'utf8') };
}

describe.concurrent('pets add --file --retry-unknown', () => {
  it('two answers lost after the service created the animals: the rerun finds both, sends nothing for them, records them; exit 0, no duplicate', async (t) => {
    const shelter = creator({ list: {}, lose: { names: (name) => name === 'A' || name === 'B', together: 2 } });
    const { server, configDir, petctl } = await setupE2e(t, shelter);
    const file = writeInput(configDir, 'intake.csv', 'name,categoryId,status\nA,1,available\nB,1,available\n');

    const first = await petctl(['pets', 'add', '--file', file, '--concurrency', '2']);
    expect(first.code, first.stderr).toBe(7);
    expect(first.stderr).toMatch(/^created 0, skipped 0, rejected 0, invalid 0, unknown 2 in /m);
    expect(first.stdout).toContain(`rerun with --retry-unknown: it lists the animals on ${server.baseUrl} `);
    expect(shelter.pets).toHaveLength(2);

    const retry = await ok(petctl(['pets', 'add', '--file', file, '--retry-unknown', '-o', 'ndjson']));
    expect(postedNames(server.requests)).toEqual(['A', 'B']);
    expect(shelter.pets).toHaveLength(2);
    expect(importSummary(retry)).toMatchObject({ created: 0, skipped: 0, rejected: 0, invalid: 0, unknown: 0, found: 2, resent: 0, ambiguous: 0 });
    expect(ndjsonRows(retry.stdout)).toEqual([
      { row: 1, line: 2, ok: true, retryUnknown: 'found', pet: { id: 100, name: 'A', categoryId: 1, status: 'available' } },
      { row: 2, line: 3, ok: true, retryUnknown: 'found', pet: { id: 101, name: 'B', categoryId: 1, status: 'available' } },
    ]);
    expect(gets(server.requests).map((r) => r.query)).toEqual([{ limit: '100', status: 'available' }]);
    expect(retry.stderr).toContain(`looked for 2 rows sent without an answer among 2 animals on ${server.baseUrl} (1 page): 2 found, 0 not found (sent again), 0 ambiguous\n`);
  });

  it('a row not found is sent again (resent); one found is not; the listing follows rel="next" page by page; a rerun without --retry-unknown reports the row and does not send it', async (t) => {
    const existing = [1, 2, 3, 4, 5].map((id) => `{"id":${id},"name":"Old ${id}","categoryId":1}`);
    const shelter = creator({ list: { existing, pageSize: 2 }, lose: { names: (name) => name === 'C' } });
    const { server, configDir, petctl } = await setupE2e(t, shelter);
    const file = writeInput(configDir, 'intake.ndjson', '{"name":"C","categoryId":3}\n{"name":"D","categoryId":4}\n');

    expect((await petctl(['pets', 'add', '--file', file, '--concurrency', '1'])).code).toBe(7);
    server.reply({ destroy: true });
    const second = await petctl(['pets', 'add', '--file', file, '--concurrency', '1']);
    expect(second.code).toBe(7);
    expect(second.stdout).toMatch(/^1\t1\toutcome_unknown\t0\tsent by an earlier run/m);
    expect(importSummary(second)).toMatchObject({ created: 0, skipped: 0, unknown: 2 });
    expect(postedNames(server.requests)).toEqual(['C', 'D']);

    const retry = await ok(petctl(['pets', 'add', '--file', file, '--retry-unknown', '-o', 'ndjson']));
    expect(postedNames(server.requests)).toEqual(['C', 'D', 'D']);
    expect(importSummary(retry)).toMatchObject({ created: 1, found: 1, resent: 1, ambiguous: 0, unknown: 0 });
    const results = ndjsonRows(retry.stdout).sort((a, b) => Number(a.row) - Number(b.row));
    expect(results).toEqual([
      { row: 1, line: 1, ok: true, retryUnknown: 'found', pet: { id: 100, name: 'C', categoryId: 3 } },
      { row: 2, line: 2, ok: true, retryUnknown: 'resent', pet: { id: 101, name: 'D', categoryId: 4 } },
    ]);
    // A row without a status: every animal is listed, every page.
    const listing = gets(server.requests);
    expect(listing.map((r) => r.url)).toEqual(['/v1/pets?limit=100', '/v1/pets?limit=100&after=2', '/v1/pets?limit=100&after=4']);
    expect(server.requests.indexOf(listing.at(-1)!)).toBeLessThan(server.requests.findLastIndex((r) => r.method === 'POST'));

    const requests = server.requests.length;
    const again = await petctl(['pets', 'add', '--file', file, '--retry-unknown']);
    expect(again.stderr).toMatch(/^skipped 2 rows already created from /m);
    expect(importSummary(again)).toMatchObject({ created: 0, skipped: 2 });
    expect(server.requests).toHaveLength(requests);
  });

  it('with --id-column a row is looked for by what it sent, though the file has changed it since; found, it is then a changed row', async (t) => {
    const shelter = creator({ list: {}, lose: { names: (name) => name === 'Tom' } });
    const { server, configDir, petctl } = await setupE2e(t, shelter);
    const file = writeInput(configDir, 'intake.csv', 'Intake No,name,categoryId,status\nA-1,Tom,2,pending\n');
    expect((await petctl(['pets', 'add', '--file', file, '--id-column', 'Intake No'])).code).toBe(7);
    writeInput(configDir, 'intake.csv', 'Intake No,name,categoryId,status\nA-1,Tom,2,sold\n');

    const retry = await petctl(['pets', 'add', '--file', file, '--id-column', 'Intake No', '--retry-unknown', '-o', 'ndjson']);
    expect(retry.code, retry.stderr).toBe(0);
    expect(ndjsonRows(retry.stdout)).toEqual([{ row: 1, line: 2, ok: true, retryUnknown: 'found', pet: { id: 100, name: 'Tom', categoryId: 2, status: 'pending' } }]);
    expect(gets(server.requests).map((r) => r.query.status)).toEqual(['pending']);
    const again = await petctl(['pets', 'add', '--file', file, '--id-column', 'Intake No']);
    expect(again.stderr).toContain('line 2 (row 1): A-1 was created as 100 on');
    expect(postedNames(server.requests)).toEqual(['Tom']);
  });

  it('a row two animals could be is reported with both ids, neither sent nor recorded: exit 6 (ambiguous_rows)', async (t) => {
    const existing = [`{"id":7,"name":"Rex","categoryId":1,"status":"available"}`, `{"id":9007199254740993,"name":"Rex","categoryId":1,"status":"available"}`];
    const { server, configDir, petctl } = await setupE2e(t, creator({ list: { existing }, firstId: 200 }));
    const file = writeInput(configDir, 'intake.csv', 'name,categoryId,status\nRex,1,available\nBo,2,sold\n');
    const { journal, recorded } = await loseFirstRow(server, petctl, file);

    const retry = await petctl(['pets', 'add', '--file', file, '--retry-unknown', '-o', 'ndjson']);
    expect(retry.code, retry.stderr).toBe(6);
    expect(postedNames(server.requests)).toEqual(['Rex', 'Bo']);
    const [rex] = ndjsonRows(retry.stdout).filter((row) => row.row === 1);
    expect(rex).toMatchObject({ ok: false, retryUnknown: 'ambiguous', error: { code: 'ambiguous_row', status: 0 } });
    expect(retry.stdout).toContain('"candidates":[7,9007199254740993]');
    expect((rex!.error as { message: string }).message).toContain('ids 7, 9007199254740993');
    expect(importSummary(retry)).toMatchObject({ created: 1, found: 0, resent: 0, ambiguous: 1 });
    expect(JSON.parse(retry.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'ambiguous_rows', status: 0 });
    // Not recorded: Bo's answer is the one new line.
    expect(fs.readFileSync(journal, 'utf8').startsWith(recorded)).toBe(true);
    expect(fs.readFileSync(journal, 'utf8').slice(recorded.length)).not.toContain('"Rex"');

    const table = await petctl(['pets', 'add', '--file', file, '--retry-unknown']);
    expect(table.code).toBe(6);
    expect(postedNames(server.requests)).toEqual(['Rex', 'Bo']);
  });

  it('the listing fails (a 429 longer than --max-wait): the import stops before sending anything, exit 5, the journal unchanged', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator({ list: {} }));
    const file = writeInput(configDir, 'intake.ndjson', '{"name":"A","categoryId":1}\n{"name":"B","categoryId":2}\n');
    const { journal, recorded } = await loseFirstRow(server, petctl, file);
    const before = server.requests.length;

    server.reply(json(429, { code: 'rate_limited', message: 'slow down', status: 429 }, { 'retry-after': '3600' }));
    const retry = await petctl(['--max-wait', '2', 'pets', 'add', '--file', file, '--retry-unknown']);
    expect(retry.code, retry.stderr).toBe(5);
    expect(server.requests.slice(before).map((r) => r.method)).toEqual(['GET']);
    expect(retry.stderr).toContain('looking for the rows sent without an answer stopped after 0 animals (page 1); nothing was sent and nothing recorded\n');
    expect(retry.stderr).toMatch(/^error: the rate limit stopped the import: .*0 rows created, 2 left; .*\(rate_limited, HTTP 429\)$/m);
    expect(fs.readFileSync(journal, 'utf8')).toBe(recorded);
  });

  it('a full last page without a next link may hide animals: a row not found is not sent (listing_incomplete, exit 7)', async (t) => {
    const existing = Array.from({ length: 100 }, (_, i) => `{"id":${i + 1},"name":"Old ${i + 1}","categoryId":1}`);
    const { server, configDir, petctl } = await setupE2e(t, creator({ list: { existing, noLinks: true }, firstId: 500 }));
    const file = writeInput(configDir, 'intake.ndjson', '{"name":"A","categoryId":1}\n');
    server.reply({ destroy: true });
    expect((await petctl(['pets', 'add', '--file', file])).code).toBe(7);

    const retry = await petctl(['pets', 'add', '--file', file, '--retry-unknown']);
    expect(retry.code, retry.stderr).toBe(7);
    expect(retry.stderr).toMatch(/^error: the listing of .* may be incomplete: page 1 held 100 animals, .*; 1 row not found .*\(listing_incomplete\)$/m);
    expect(postedNames(server.requests)).toEqual(['A']);
  });
});
