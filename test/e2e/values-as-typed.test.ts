import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, jsonError, setupE2e } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';
import { json } from '../helpers/scripted-server';

/**
 * Values as people type them, end to end against a scripted server: a bad value
 * names its flag or column and is repeated as typed; a status is matched in any
 * case and sent lower-case; words left over after a flag's value get the quotes
 * they lacked. Nothing is sent for a usage error.
 */

const RANGE = 'must be a whole number from -9223372036854775808 to 9223372036854775807';

function usage(message: string, hint: string): string {
  return `error: ${message} (usage_error)\nhint: ${hint}\n`;
}

function expectRefused(result: CliResult, stderr: string): void {
  expect(result).toMatchObject({ code: 2, stdout: '', stderr });
}

describe.concurrent('a bad flag or argument names itself and repeats the value as typed (exit 2, nothing sent)', () => {
  it.for<[string[], string]>([
    [['pets', 'add', '--name', 'Rex', '--category-id', 'cat'], usage('--category-id must be a whole number, not "cat"', 'see petctl pets add --help')],
    [['pets', 'add', '--name', 'Rex', '--category-id', '1.5'], usage('--category-id must be a whole number, not "1.5"', 'see petctl pets add --help')],
    [['pets', 'add', '--name', 'Rex', '--category-id', '9223372036854775808'], usage(`--category-id ${RANGE}, not "9223372036854775808"`, 'see petctl pets add --help')],
    [['pets', 'add', '--name', 'Rex', '--category-id', '1', '--status', 'adopted'], usage('--status must be one of available, pending, sold, not "adopted"', 'see petctl pets add --help')],
    [['pets', 'list', '--limit', 'ten'], usage('--limit must be a whole number from 1 to 100, not "ten"', 'see petctl pets list --help')],
    [['pets', 'list', '--limit', '0'], usage('--limit must be a whole number from 1 to 100, not "0"', 'see petctl pets list --help')],
    [['pets', 'list', '--status', 'Availble'], usage('--status must be one of available, pending, sold, not "Availble"', 'see petctl pets list --help')],
    [['pets', 'get', 'abc'], usage('petId must be a whole number, not "abc"', 'see petctl pets get --help')],
    [['pets', 'get', '-9223372036854775809'], usage(`petId ${RANGE}, not "-9223372036854775809"`, 'see petctl pets get --help')],
    [['-o', 'yaml', 'pets', 'list'], usage('--output must be one of table, json, ndjson, csv, not "yaml"', 'see petctl --help')],
    // A global flag's bad value comes before what follows it: --version, a flag's missing value.
    [['--timeout', '0', '--version'], usage('--timeout must be a number of seconds greater than 0, not "0"', 'see petctl --help')],
    [['--timeout', '0', '-o'], usage('--timeout must be a number of seconds greater than 0, not "0"', 'see petctl --help')],
  ])('petctl %j', async ([args, stderr], t) => {
    const { server, petctl } = await setupE2e(t);
    expectRefused(await petctl(args!), stderr!);
    expect(server.requests).toHaveLength(0);
  });

  it('with -o json the same message is one JSON line, code usage_error', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const result = await petctl(['pets', 'add', '--name', 'Rex', '--category-id', 'cat', '-o', 'json']);
    expect(result.code).toBe(2);
    expect(jsonError(result)).toEqual({ code: 'usage_error', message: '--category-id must be a whole number, not "cat"', status: 0 });
    expect(server.requests).toHaveLength(0);
  });

  it.for<[string[], string]>([
    [['--timeout', '0', '-o', 'json', 'pets', 'list'], '--timeout must be a number of seconds greater than 0, not "0"'],
    [['--max-wait', 'x', '--retries', '101', 'pets', 'list', '--json'], '--max-wait must be a number of seconds, 0 or more, not "x"'],
  ])('a global flag\'s bad value before -o json is JSON too, the first one: petctl %j', async ([args, message], t) => {
    const { server, petctl } = await setupE2e(t);
    const result = await petctl(args!);
    expect(result.code).toBe(2);
    expect(jsonError(result)).toEqual({ code: 'usage_error', message, status: 0 });
    expect(server.requests).toHaveLength(0);
  });
});

describe.concurrent('a status in any case is sent lower-case', () => {
  it.for([['Available', 'available'], ['SOLD', 'sold'], [' pending ', 'pending']])('pets list --status %j asks for status=%s', async ([typed, sent], t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(json(200, []));
    const result = await petctl(['pets', 'list', '--status', typed!]);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests.map((request) => request.query)).toEqual([{ status: sent }]);
  });

  it.for([['Available', 'available'], ['SOLD', 'sold'], [' pending ', 'pending']])('pets add --status %j posts "status":"%s"', async ([typed, sent], t) => {
    const { server, petctl } = await setupE2e(t, creator());
    const result = await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '1', '--status', typed!, '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests.map((request) => request.body)).toEqual([`{"name":"Rex","categoryId":1,"status":"${sent}"}`]);
  });

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

describe.concurrent('words left over after a flag value: the hint shows the flag with its words in quotes (exit 2, nothing sent)', () => {
  it.for<[string[], string]>([
    [['pets', 'add', '--name', 'Mr', 'Whiskers', '--category-id', '1'], usage('unexpected "Whiskers" after --name Mr', 'quote a value with spaces: --name "Mr Whiskers"')],
    [['pets', 'add', '--category-id', '1', '--name=Mr', 'Big', 'Whiskers'], usage('unexpected "Big" "Whiskers" after --name Mr', 'quote a value with spaces: --name "Mr Big Whiskers"')],
    [['pets', 'add', '--name', 'Sir', 'Paws', '--category-id', '1', '-p', 'my', 'shelter'], usage('unexpected "Paws" after --name Sir', 'quote a value with spaces: --name "Sir Paws" -p "my shelter"')],
    [['-p', 'my', 'shelter', 'pets', 'list', '--status', 'sold'], usage('unexpected "shelter" after -p my', 'quote a value with spaces: -p "my shelter"')],
    [['pets', 'add', '--name', 'Tom', '"the', 'cat"', '--category-id', '1'], usage('unexpected ""the" "cat"" after --name Tom', `quote a value with spaces: --name 'Tom "the cat"'`)],
  ])('petctl %j', async ([args, stderr], t) => {
    const { server, petctl } = await setupE2e(t);
    expectRefused(await petctl(args!), stderr!);
    expect(server.requests).toHaveLength(0);
  });

  it('with -o json the message is one JSON line, code usage_error', async (t) => {
    const { petctl } = await setupE2e(t);
    const result = await petctl(['pets', 'add', '--name', 'Mr', 'Whiskers', '--category-id', '1', '-o', 'json']);
    expect(result.code).toBe(2);
    expect(jsonError(result)).toEqual({ code: 'usage_error', message: 'unexpected "Whiskers" after --name Mr', status: 0 });
  });

  it.for<[string[], string]>([
    [['pets', 'get', '1', '2'], usage('petctl pets get takes 1 argument (<petId>); unexpected "2"', 'see petctl pets get --help')],
    [['pets', 'list', 'available'], usage('petctl pets list takes no arguments; unexpected "available"', 'see petctl pets list --help')],
    [['pets', 'list', '--all', 'sold', 'pending'], usage('petctl pets list takes no arguments; unexpected "sold" "pending"', 'see petctl pets list --help')],
    [['pets', 'list', '--', 'a', 'b'], usage('petctl pets list takes no arguments; unexpected "a" "b"', 'see petctl pets list --help')],
    [['-p', 'prod', 'pet', 'list'], usage("unknown command 'pet' (did you mean 'pets'?)", 'see petctl pets list --help')],
  ])('with no flag value before them, petctl %j names what the command takes', async ([args, stderr], t) => {
    const { server, petctl } = await setupE2e(t);
    expectRefused(await petctl(args!), stderr!);
    expect(server.requests).toHaveLength(0);
  });
});
