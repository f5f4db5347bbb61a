import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { setupE2e } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';

/**
 * Values as people type them in an import's file, end to end against a scripted server: a status in
 * any case is sent lower-case; a bad cell names its column and is repeated as typed. The same for
 * flags is tested where argv is parsed (test/commands/parsing.test.ts).
 */

const RANGE = 'must be a whole number from -9223372036854775808 to 9223372036854775807';

describe.concurrent('a status in any case is sent lower-case', () => {
  it.for([
    ['shelter.csv', 'name,categoryId,status\nA,1,Available\nB,2,SOLD\nC,3, pending \n'],
    ['shelter.ndjson', '{"name":"A","categoryId":1,"status":"Available"}\n{"name":"B","categoryId":2,"status":"SOLD"}\n{"name":"C","categoryId":3,"status":" pending "}\n'],
    ['shelter.json', '[{"name":"A","categoryId":1,"status":"Available"},{"name":"B","categoryId":2,"status":"SOLD"},{"name":"C","categoryId":3,"status":" pending "}]'],
  ])('pets add --file %s posts each status lower-case', async ([name, text], t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const file = path.join(configDir, name!);
    fs.writeFileSync(file, text!);
    const result = await petctl(['pets', 'add', '--file', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests.map((request) => request.body).sort()).toEqual([
      '{"name":"A","categoryId":1,"status":"available"}',
      '{"name":"B","categoryId":2,"status":"sold"}',
      '{"name":"C","categoryId":3,"status":"pending"}',
    ]);
  });
});

describe.concurrent('a bad cell names its column and repeats the value as typed (exit 6, nothing sent)', () => {
  const CSV = 'name,categoryId,status\nA,cat,available\nB,9223372036854775808,sold\nC,3,Sould\nD,4,SOLD\n';
  const REASONS = [
    'line 2 (row 1): categoryId must be a whole number, not "cat"',
    `line 3 (row 2): categoryId ${RANGE}, not 9223372036854775808`,
    'line 4 (row 3): status must be one of available, pending, sold, not "Sould"',
  ];

  it('CSV', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const file = path.join(configDir, 'intake.csv');
    fs.writeFileSync(file, CSV);
    const result = await petctl(['pets', 'add', '--file', file]);
    expect(result.code).toBe(6);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('line '))).toEqual(REASONS);
    expect(server.requests).toHaveLength(0);
  });

  it('NDJSON with --skip-invalid -o ndjson: each reason is an invalid_row, and the valid row goes out lower-case', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const file = path.join(configDir, 'intake.ndjson');
    fs.writeFileSync(file, '{"name":"A","categoryId":"cat"}\n{"name":"B","categoryId":9223372036854775808}\n{"name":"C","categoryId":3,"status":"Sould"}\n{"name":"D","categoryId":4,"status":"SOLD"}\n');
    const result = await petctl(['pets', 'add', '--file', file, '--skip-invalid', '-o', 'ndjson']);
    expect(result.code).toBe(6);
    const errors = result.stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { ok: boolean; error?: unknown }).filter((row) => !row.ok).map((row) => row.error);
    expect(errors).toEqual([
      { code: 'invalid_row', message: 'categoryId must be a whole number, not "cat"', status: 0 },
      { code: 'invalid_row', message: `categoryId ${RANGE}, not 9223372036854775808`, status: 0 },
      { code: 'invalid_row', message: 'status must be one of available, pending, sold, not "Sould"', status: 0 },
    ]);
    expect(server.requests.map((request) => request.body)).toEqual(['{"name":"D","categoryId":4,"status":"sold"}']);
  });
});
