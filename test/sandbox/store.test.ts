import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { SandboxDataFileError } from '../../src/sandbox/errors';
import { openFileStore } from '../../src/sandbox/file-store';
import { createMemoryStore, PetStore, storedPet } from '../../src/sandbox/store';
import { parseJson } from '../../src/schemas/json';
import { PET_STATUSES } from '../../src/schemas/constants';
import type { Pet } from '../../src/schemas/pet';
import { tempDir } from '../helpers/temp-dir';
import { call, ENTERPRISE, start } from './helpers';

const HEADER = '{"format":"petctl-sandbox-pets","version":2}\n';

// A file store may still be writing a batch: each is closed after its test, as the sandbox closes its own.
const opened: PetStore[] = [];
afterEach(() => Promise.all(opened.splice(0).map((store) => store.close())));

/** A store on `file` (a new one in a fresh folder by default), holding `content` when given. */
async function openStore(file = path.join(tempDir(), 'sandbox.json'), content?: string): Promise<PetStore> {
  if (content !== undefined) writeFileSync(file, content);
  const store = await openFileStore(file);
  opened.push(store);
  return store;
}

/** The ids of the animals in a data file, a line each after the header. */
const fileIds = (file: string) => [...readFileSync(file, 'utf8').matchAll(/^\{"id":(\d+),/gm)].map((m) => BigInt(m[1]!));

type Query = Parameters<PetStore['page']>[0];

function list(store: PetStore, query: Query): Pet[] {
  store.refresh();
  return parseJson(store.page(query).body) as Pet[];
}

function get(store: PetStore, id: bigint): unknown {
  store.refresh();
  const text = store.get(id);
  return text === undefined ? undefined : parseJson(text);
}

describe('a fresh store', () => {
  it('holds a dozen sample animals across all three statuses and categories 1..4', () => {
    const pets = list(createMemoryStore(), { limit: 100 });
    expect(pets.map((pet) => pet.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(new Set(pets.map((pet) => pet.status))).toEqual(new Set(PET_STATUSES));
    expect(new Set(pets.map((pet) => pet.categoryId))).toEqual(new Set([1, 2, 3, 4]));
    expect(pets.every((pet) => typeof pet.name === 'string' && pet.name.length > 1)).toBe(true);
  });

  it.each([
    [{ limit: 10 }, ['Five', 'Seven', 'Big']],
    [{ limit: 10, status: 'sold' }, ['Five', 'Big']],
    [{ limit: 1, status: 'sold' }, ['Five']],
    [{ limit: 10, status: 'pending' }, []],
    [{ limit: 10, after: 5n }, ['Seven', 'Big']],
    [{ limit: 10, after: 6n, status: 'sold' }, ['Big']],
    [{ limit: 10, after: -100n }, ['Five', 'Seven', 'Big']],
    [{ limit: 10, after: 9007199254740993n }, []],
  ] as Array<[Query, string[]]>)('lists in ascending id order, by status, at most limit, after an id: %o', (query, names) => {
    const store = new PetStore([
      storedPet({ id: 5, name: 'Five', categoryId: 1, status: 'sold' }),
      storedPet({ id: 7, name: 'Seven', categoryId: 2, status: 'available' }),
      storedPet({ id: 9007199254740993n, name: 'Big', categoryId: 1, status: 'sold' }),
    ]);
    expect(list(store, query).map((pet) => pet.name)).toEqual(names);
  });
});

it('creates the file (an empty one too): the sample animals, 0600, in a 0700 folder; a line per add', async () => {
  const file = path.join(tempDir(), 'nested', 'deeper', 'sandbox.json');
  const store = await openStore(file);
  expect(store.dataFile).toBe(file);
  expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  const before = readFileSync(file, 'utf8');
  expect(before.split('\n')[0]).toBe(HEADER.trim());
  expect(fileIds(file)).toHaveLength(12);
  await store.add({ name: 'Rex II', categoryId: 1, status: 'sold' });
  expect(readFileSync(file, 'utf8')).toBe(`${before}{"id":13,"name":"Rex II","categoryId":1,"status":"sold"}\n`);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(get(await openStore(file), 13n)).toEqual({ id: 13, name: 'Rex II', categoryId: 1, status: 'sold' });
  const blank = path.join(tempDir(), 'sandbox.json');
  await openStore(blank, '  \n');
  expect(fileIds(blank)).toHaveLength(12);
});

it('ignores a last line cut short by a crash (never acknowledged), and cuts it off before the next add', async () => {
  const file = path.join(tempDir(), 'sandbox.json');
  await openStore(file);
  appendFileSync(file, '{"id":13,"name":"Half');
  const store = await openStore(file);
  expect(list(store, { limit: 100 })).toHaveLength(12);
  expect((await store.add({ name: 'Whole', categoryId: 1 })).id).toBe(13n);
  expect(readFileSync(file, 'utf8')).not.toContain('Half');
  expect(fileIds(file)).toHaveLength(13);
});

const NOT_A_LOG = /is not a petctl sandbox data file/;
it.each([
  ['not JSON', '{"pets": [', /is not a petctl sandbox data file: its first line is not \{"format":"petctl-sandbox-pets","version":2\}/],
  ['one JSON document of animals', '{"version": 1, "pets": [{"id": 1, "name": "a", "categoryId": 1}]}', NOT_A_LOG],
  ['plain text', 'garbage\n', NOT_A_LOG],
  ['a log animal without a name', `${HEADER}{"id":1,"categoryId":1}\n`, /^sandbox data file .+ has an invalid animal at line 2: name/],
  ['a log line with a fractional id', `${HEADER}{"id":1.5,"name":"x","categoryId":1}\n`, /line 2: id/],
  ['a log holding one id twice', `${HEADER}{"id":1,"name":"a","categoryId":1}\n{"id":1,"name":"b","categoryId":1}\n`, /id 1 at line 3/],
  ['a log line that is not JSON', `${HEADER}{"id":1,"name":"a","categoryId":1}\nnonsense\n`, /line 3/],
  ['a log line with a bad status', `${HEADER}{"id":1,"name":"a","categoryId":1,"status":"lost"}\n`, /line 2: status/],
  ['a log of an unknown version', '{"format":"petctl-sandbox-pets","version":9}\n', /version 9/],
])('fails clearly, naming the file, on %s, and leaves the file alone', async (_case, content, pattern) => {
  const file = path.join(tempDir(), 'sandbox.json');
  writeFileSync(file, content);
  const error = await openFileStore(file).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(SandboxDataFileError);
  expect((error as Error).message).toMatch(pattern);
  expect((error as Error).message).toContain(file);
  expect(readFileSync(file, 'utf8')).toBe(content);
});

it('fails on a file that became corrupt after opening, without overwriting it', async () => {
  const file = path.join(tempDir(), 'sandbox.json');
  const store = await openStore(file);
  writeFileSync(file, 'garbage');
  expect(() => store.refresh()).toThrow(file);
  await expect(store.add({ name: 'Lost?', categoryId: 1 })).rejects.toBeInstanceOf(SandboxDataFileError);
  expect(readFileSync(file, 'utf8')).toBe('garbage');
});

it('writes every animal it holds back when the file was deleted under it', async () => {
  const file = path.join(tempDir(), 'sandbox.json');
  const store = await openStore(file);
  await store.add({ name: 'Kept', categoryId: 1 });
  rmSync(file);
  expect(list(store, { limit: 100 })).toHaveLength(13);
  await store.add({ name: 'Next', categoryId: 1 });
  expect(fileIds(file)).toHaveLength(14);
});

it('sees what another store appended, reading only the new lines', async () => {
  const file = path.join(tempDir(), 'sandbox.json');
  const [one, two] = await Promise.all([openStore(file), openStore(file)]);
  const versionBefore = one.version;
  await two.add({ name: 'From two', categoryId: 2 });
  expect(get(one, 13n)).toEqual({ id: 13, name: 'From two', categoryId: 2 });
  expect(one.version).toBeGreaterThan(versionBefore);
});

it('writes adds that arrive together with one append (group commit), ids in order; one after another too', async () => {
  const file = path.join(tempDir(), 'sandbox.json');
  const store = await openStore(file);
  const added = await Promise.all(Array.from({ length: 50 }, (_, i) => store.add({ name: `n${i}`, categoryId: 1 })));
  expect(added.map((pet) => Number(pet.id))).toEqual(Array.from({ length: 50 }, (_, i) => 13 + i));
  // Each resolves as the previous one resolves.
  for (let i = 0; i < 5; i += 1) expect((await store.add({ name: `m${i}`, categoryId: 1 })).id).toBe(BigInt(63 + i));
  expect(fileIds(file)).toEqual(Array.from({ length: 67 }, (_, i) => BigInt(i + 1)));
});

it('int64 ids above 2^53 read digit for digit, the next assigned exactly; none past the largest', async () => {
  const file = path.join(tempDir(), 'sandbox.json');
  const huge = '{"id":9007199254740993,"name":"Huge","categoryId":9223372036854775807,"status":"available"}';
  const store = await openStore(file, `${HEADER}${huge}\n`);
  expect(get(store, 9007199254740993n)).toEqual(parseJson(huge));
  // 9007199254740992 is what JSON.parse would have made of the stored id.
  expect(get(store, 9007199254740992n)).toBeUndefined();
  await store.add({ name: 'Next', categoryId: 1 });
  expect(readFileSync(file, 'utf8')).toBe(`${HEADER}${huge}\n{"id":9007199254740994,"name":"Next","categoryId":1}\n`);
  const last = await openStore(undefined, `${HEADER}{"id":9223372036854775807,"name":"Last","categoryId":1}\n`);
  await expect(last.add({ name: 'Overflow', categoryId: 1 })).rejects.toThrow(/int64/);
});

it('--data: answers 500 internal_error naming the file when it turns corrupt while serving, and logs that one line', async () => {
  const dataFile = path.join(tempDir(), 'sandbox.json');
  const logLines: string[] = [];
  const { baseUrl } = await start({ dataFile, log: (line) => logLines.push(line) });
  writeFileSync(dataFile, 'not json');
  const reply = await call(baseUrl, '/pets', { key: ENTERPRISE });
  expect(reply).toMatchObject({ status: 500, body: { code: 'internal_error', status: 500 } });
  const { message } = reply.body as { message: string };
  expect(message).toContain(dataFile);
  // The request log says it in one line: no stack trace.
  expect(logLines).toContain(`error: ${message}`);
  expect(logLines.join('\n')).not.toContain('    at ');
});
