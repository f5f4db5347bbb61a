import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { BIG, cliSession, inBash, ok, setupE2e, tempDir } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';
import { writeSandboxData } from '../helpers/sandbox-data';

/** `petctl pets list|add|get` as a fresh install runs them (the built-in sandbox), and on a scripted server. */

const SAMPLE_TSV = [
  '1\tRex\t1\tavailable',
  '2\tBella\t1\tpending',
  '3\tMax\t1\tsold',
  '4\tLuna\t2\tavailable',
  '5\tOliver\t2\tavailable',
  '6\tMilo\t2\tsold',
  '7\tKiwi\t3\tavailable',
  '8\tSunny\t3\tpending',
  '9\tHazel\t4\tavailable',
  '10\tPepper\t4\tsold',
  '11\tDaisy\t1\tavailable',
  '12\tNibbles\t4\tpending',
];
const SAMPLE = SAMPLE_TSV.map((line) => {
  const [id, name, categoryId, status] = line.split('\t') as [string, string, string, string];
  return { id: Number(id), name, categoryId: Number(categoryId), status };
});

const THREE = '3 animals have no status: they appear in no pets list --status available|pending|sold, only in pets list without --status';

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

it.concurrent('a fresh install lists the sandbox sample animals: prints the 12 animals as TSV when piped (-o json the Pets array); pets add adds one that the next process lists, its data file private; an id above 2^53 is listed, got and continued exactly', async () => {
  const configDir = tempDir();
  const dataFile = path.join(configDir, 'sandbox-data.json');
  const petctl = cliSession({ env: { PETCTL_CONFIG_DIR: configDir } });
  expect(await petctl(['pets', 'list'])).toMatchObject({ code: 0, stdout: `${SAMPLE_TSV.join('\n')}\n`, stderr: '' });
  expect(JSON.parse((await petctl(['pets', 'list', '-o', 'json'])).stdout)).toEqual(SAMPLE);

  const added = await ok(petctl(['pets', 'add', '--name', 'Rex2', '--category-id', '1']));
  expect(added.stdout).toBe('13\tRex2\t1\t-\n');
  expect(added.stderr).toBe('1 animal has no status: it appears in no pets list --status available|pending|sold, only in pets list without --status\n');
  const list = await petctl(['pets', 'list', '--limit', '100']);
  expect(list.stdout.split('\n').filter(Boolean)).toEqual([...SAMPLE_TSV, '13\tRex2\t1\t-']);
  expect(modeOf(dataFile)).toBe(0o600);
  expect(modeOf(configDir)).toBe(0o700);
  expect(fs.readFileSync(dataFile, 'utf8').endsWith('\n{"id":13,"name":"Rex2","categoryId":1}\n')).toBe(true);

  writeSandboxData(dataFile, `[{ "id": 1, "name": "Rex", "categoryId": 1, "status": "available" }, { "id": ${BIG}, "name": "Huge", "categoryId": ${BIG}, "status": "sold" }]`);
  expect((await petctl(['pets', 'list'])).stdout).toBe(`1\tRex\t1\tavailable\n${BIG}\tHuge\t${BIG}\tsold\n`);
  const got = await ok(petctl(['pets', 'get', BIG, '-o', 'json']));
  expect(got.stdout).toBe(`{\n  "id": ${BIG},\n  "name": "Huge",\n  "categoryId": ${BIG},\n  "status": "sold"\n}\n`);
  const next = await petctl(['pets', 'add', '--name', 'Next', '--category-id', '1', '-o', 'ndjson']);
  expect(next.stdout).toBe('{"id":9007199254740994,"name":"Next","categoryId":1}\n');
});

it.concurrent('animals created without a status: an import counts the rows created without a status (empty cells too), once; a rerun that creates none, an add with --status, and -q say nothing', async (t) => {
  const { server, configDir, petctl } = await setupE2e(t, creator());
  const file = path.join(configDir, 'intake.csv');
  fs.writeFileSync(file, 'name,categoryId,status\nRex,1,\nTom,1,available\nMia,2,  \nBo,3,\n');

  const result = await ok(petctl(['pets', 'add', '--file', file]));
  expect(result.stderr.split(THREE)).toHaveLength(2);
  expect(result.stdout).toBe('');
  const bodies = server.requests.map((request) => request.body).sort();
  expect(bodies).toEqual(['{"name":"Bo","categoryId":3}', '{"name":"Mia","categoryId":2}', '{"name":"Rex","categoryId":1}', '{"name":"Tom","categoryId":1,"status":"available"}']);

  const again = await ok(petctl(['pets', 'add', '--file', file]));
  expect(again.stderr).not.toContain('no status');
  const add = ['pets', 'add', '--name', 'Tom', '--category-id', '1'];
  expect(await petctl([...add, '--status', 'Available'])).toMatchObject({ code: 0, stderr: '' });
  expect(await petctl(['--quiet', ...add])).toMatchObject({ code: 0, stderr: '' });
});

it.concurrent('output the system refuses to write (> /dev/full) is no success: exit 1, output_unwritable, in words or as the JSON line; the animal is still created; --version and help too; a refused stderr keeps the exit code', async (t) => {
  const { server, configDir, key } = await setupE2e(t, creator({ list: {} }));
  const env = { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key };
  const petctl = `petctl --base-url ${server.baseUrl}`;

  const added = await inBash(`${petctl} pets add --name Rex --category-id 1 --status sold > /dev/full`, env);
  const lost = 'cannot write to standard output: no space left on the device (ENOSPC); its output is lost, not what the command did';
  expect(added).toMatchObject({ code: 1, stdout: '', stderr: `error: ${lost} (output_unwritable)\n` });
  const listed = await inBash(`${petctl} pets list -o json > /dev/full`, env);
  expect(listed).toMatchObject({ code: 1, stderr: `${JSON.stringify({ code: 'output_unwritable', message: lost, status: 0 })}\n` });
  expect(server.requests.map((request) => request.method)).toEqual(['POST', 'GET']);
  expect(`${added.stderr}${listed.stderr}`).not.toContain(key);

  // --version and help, answered without the program (bin/petctl.js), say it the same way, never with a stack trace.
  for (const asked of ['--version', '--help']) {
    expect(await inBash(`petctl ${asked} > /dev/full`, env)).toMatchObject({ code: 1, stderr: `error: ${lost} (output_unwritable)\n` });
  }
  // stderr refused: nothing can be said, and the exit code is the one the command ended with, not 1.
  const silent = await inBash(`${petctl} pets list --limit 0 2> /dev/full; echo "exit $?"`, env);
  expect(silent).toMatchObject({ code: 0, stdout: 'exit 2\n', stderr: '' });
});
