import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';

import { SandboxDataFileError } from '../../src/sandbox/errors';
import { openFileStore } from '../../src/sandbox/file-store';
import { createMemoryStore, type PetStore } from '../../src/sandbox/store';
import { parseJson } from '../../src/schemas/json';
import { PET_STATUSES } from '../../src/schemas/constants';
import type { Pet } from '../../src/schemas/pet';
import { tempDir } from '../helpers/temp-dir';
import { call, dataFilePets, ENTERPRISE, postJson, start } from './helpers';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');


// A file store may still be writing a batch: each is closed after its test, as the sandbox closes its own.
const opened: PetStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
async function openStore(file: string): Promise<PetStore> {
  const store = await openFileStore(file);
  opened.push(store);
  return store;
}

function fileIds(file: string): bigint[] {
  return dataFilePets<Pet>(file).map((pet) => BigInt(pet.id));
}

function list(store: PetStore, query: Parameters<PetStore['page']>[0]): Pet[] {
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
    expect(pets).toHaveLength(12);
    expect(pets.map((pet) => pet.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(new Set(pets.map((pet) => pet.status))).toEqual(new Set(PET_STATUSES));
    expect(new Set(pets.map((pet) => pet.categoryId))).toEqual(new Set([1, 2, 3, 4]));
    expect(pets.every((pet) => typeof pet.name === 'string' && pet.name.length > 1)).toBe(true);
  });

  it('lists in ascending id order, filtered by status, at most limit, after an id', () => {
    const store = createMemoryStore({
      pets: [
        { id: 9007199254740993n, name: 'Big', categoryId: 1, status: 'sold' },
        { id: 5, name: 'Five', categoryId: 1, status: 'sold' },
        { id: 7, name: 'Seven', categoryId: 2, status: 'available' },
      ],
    });
    const names = (query: Parameters<PetStore['page']>[0]) => list(store, query).map((pet) => pet.name);
    expect(names({ limit: 10 })).toEqual(['Five', 'Seven', 'Big']);
    expect(names({ limit: 10, status: 'sold' })).toEqual(['Five', 'Big']);
    expect(names({ limit: 1, status: 'sold' })).toEqual(['Five']);
    expect(names({ limit: 10, status: 'pending' })).toEqual([]);
    expect(names({ limit: 10, after: 5n })).toEqual(['Seven', 'Big']);
    expect(names({ limit: 10, after: 6n, status: 'sold' })).toEqual(['Big']);
    expect(names({ limit: 10, after: -100n })).toEqual(['Five', 'Seven', 'Big']);
    expect(names({ limit: 10, after: 9007199254740993n })).toEqual([]);
  });

  it('assigns max(id) + 1, with bigint arithmetic above 2^53', async () => {
    const store = createMemoryStore({ pets: [{ id: 9007199254740993n, name: 'Big', categoryId: 1 }] });
    const added = await store.add({ name: 'Next', categoryId: 2 });
    expect(added.json).toBe('{"id":9007199254740994,"name":"Next","categoryId":2}');
    expect(get(store, 9007199254740994n)).toEqual({ id: 9007199254740994n, name: 'Next', categoryId: 2 });
  });
});

describe('a file-backed store', () => {
  it('creates the file with the sample animals, mode 0600, in a new 0700 directory', async () => {
    const file = path.join(tempDir(), 'nested', 'deeper', 'sandbox.json');
    const store = await openStore(file);
    expect(store.dataFile).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(fileIds(file)).toHaveLength(12);
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe('{"format":"petctl-sandbox-pets","version":2}');
  });

  it('appends one line per add, keeps 0600, and persists across reopening', async () => {
    const file = path.join(tempDir(), 'sandbox.json');
    const store = await openStore(file);
    const before = readFileSync(file, 'utf8');
    await store.add({ name: 'Rex II', categoryId: 1, status: 'sold' });
    expect(readFileSync(file, 'utf8')).toBe(`${before}{"id":13,"name":"Rex II","categoryId":1,"status":"sold"}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(get(await openStore(file), 13n)).toEqual({ id: 13, name: 'Rex II', categoryId: 1, status: 'sold' });
  });

  it('refuses to go past the largest int64', async () => {
    const file = path.join(tempDir(), 'sandbox.json');
    writeFileSync(file, '{"format":"petctl-sandbox-pets","version":2}\n{"id":9223372036854775807,"name":"Last","categoryId":1}\n');
    const store = await openStore(file);
    await expect(store.add({ name: 'Overflow', categoryId: 1 })).rejects.toThrow(/int64/);
  });

  it('treats an empty file as new and seeds it', async () => {
    const file = path.join(tempDir(), 'sandbox.json');
    writeFileSync(file, '  \n');
    await openStore(file);
    expect(fileIds(file)).toHaveLength(12);
  });

  it('ignores a last line cut short by a crash (never acknowledged), and cuts it off before the next add', async () => {
    const file = path.join(tempDir(), 'sandbox.json');
    await openStore(file);
    appendFileSync(file, '{"id":13,"name":"Half');
    const store = await openStore(file);
    expect(list(store, { limit: 100 })).toHaveLength(12);
    const added = await store.add({ name: 'Whole', categoryId: 1 });
    expect(added.id).toBe(13n);
    expect(readFileSync(file, 'utf8')).not.toContain('Half');
    expect(fileIds(file)).toHaveLength(13);
  });

  const header = '{"format":"petctl-sandbox-pets","version":2}\n';
  it.each([
    ['not JSON', '{"pets": [', /is not a petctl sandbox data file: its first line is not \{"format":"petctl-sandbox-pets","version":2\}/],
    ['one JSON document of animals', '{"version": 1, "pets": [{"id": 1, "name": "a", "categoryId": 1}]}', /is not a petctl sandbox data file/],
    ['plain text', 'garbage\n', /is not a petctl sandbox data file/],
    ['a log animal without a name', `${header}{"id":1,"categoryId":1}\n`, /^sandbox data file .+ has an invalid animal at line 2: name/],
    ['a log line with a fractional id', `${header}{"id":1.5,"name":"x","categoryId":1}\n`, /line 2: id/],
    ['a log holding one id twice', `${header}{"id":1,"name":"a","categoryId":1}\n{"id":1,"name":"b","categoryId":1}\n`, /id 1 at line 3/],
    ['a log line that is not JSON', `${header}{"id":1,"name":"a","categoryId":1}\nnonsense\n`, /line 3/],
    ['a log line with a bad status', `${header}{"id":1,"name":"a","categoryId":1,"status":"lost"}\n`, /line 2: status/],
    ['log ids out of order', `${header}{"id":2,"name":"a","categoryId":1}\n{"id":2,"name":"b","categoryId":1}\n`, /id 2 at line 3/],
    ['a log of an unknown version', '{"format":"petctl-sandbox-pets","version":9}\n', /version 9/],
  ])('fails clearly, naming the file, on %s, and leaves the file alone', async (_case, content, pattern) => {
    const file = path.join(tempDir(), 'sandbox.json');
    writeFileSync(file, content);
    const opening = openFileStore(file);
    await expect(opening).rejects.toBeInstanceOf(SandboxDataFileError);
    await expect(opening).rejects.toThrow(pattern);
    await expect(opening).rejects.toThrow(file);
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
    (await import('node:fs')).rmSync(file);
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

  it('writes adds that arrive together with one append (group commit), ids in order', async () => {
    const file = path.join(tempDir(), 'sandbox.json');
    const store = await openStore(file);
    const added = await Promise.all(Array.from({ length: 50 }, (_, i) => store.add({ name: `n${i}`, categoryId: 1 })));
    expect(added.map((pet) => Number(pet.id))).toEqual(Array.from({ length: 50 }, (_, i) => 13 + i));
    expect(fileIds(file)).toHaveLength(62);
  });

  it('resolves adds made one after another, each as the previous one resolves', async () => {
    const file = path.join(tempDir(), 'sandbox.json');
    writeFileSync(file, `{"format":"petctl-sandbox-pets","version":2}\n{"id":1,"name":"One","categoryId":1}\n`);
    const store = await openStore(file);
    for (let i = 0; i < 5; i += 1) expect((await store.add({ name: `n${i}`, categoryId: 1 })).id).toBe(BigInt(i + 2));
    expect(fileIds(file)).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
  });

  it('loses no animal when two processes add to one file at the same time', async () => {
    const dir = tempDir();
    const bundle = path.join(dir, 'store.cjs');
    await build({
      entryPoints: [path.join(repoRoot, 'src/sandbox/file-store.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: bundle,
      logLevel: 'silent',
    });
    const script = path.join(dir, 'add.cjs');
    writeFileSync(
      script,
      `const { openFileStore } = require(${JSON.stringify(bundle)});
       const [file, label] = process.argv.slice(2);
       openFileStore(file).then((store) =>
         Promise.all(Array.from({ length: 25 }, (_, i) => store.add({ name: label + '-' + i, categoryId: 1 }))),
       ).catch((error) => { console.error(error); process.exitCode = 1; });`,
    );
    const dataDir = path.join(dir, 'data');
    mkdirSync(dataDir);
    const file = path.join(dataDir, 'sandbox.json');
    await Promise.all(['a', 'b'].map((label) => run(process.execPath, [script, file, label])));
    const ids = fileIds(file);
    expect(ids).toHaveLength(62);
    expect(new Set(ids).size).toBe(62);
    const names = dataFilePets<Pet>(file).map((pet) => pet.name);
    for (const label of ['a', 'b']) {
      for (let i = 0; i < 25; i += 1) expect(names).toContain(`${label}-${i}`);
    }
    expect(existsSync(`${file}.lock`)).toBe(false);
  }, 20_000);
});

describe('the sandbox with --data', () => {
  it('returns int64 ids above 2^53 from the data file digit for digit, and assigns the next one exactly', async () => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    writeFileSync(
      dataFile,
      '{"format":"petctl-sandbox-pets","version":2}\n{"id":9007199254740993,"name":"Huge","categoryId":9223372036854775807,"status":"available"}\n',
    );
    const { baseUrl, dataFile: served } = await start({ dataFile });
    expect(served).toBe(dataFile);

    const got = await call(baseUrl, '/pets/9007199254740993', { key: ENTERPRISE });
    expect(got.status).toBe(200);
    expect(got.text).toBe('{"id":9007199254740993,"name":"Huge","categoryId":9223372036854775807,"status":"available"}');

    // 9007199254740992 is what JSON.parse would have made of the stored id.
    expect((await call(baseUrl, '/pets/9007199254740992', { key: ENTERPRISE })).status).toBe(404);

    const listed = await call(baseUrl, '/pets', { key: ENTERPRISE });
    expect(listed.text).toContain('"id":9007199254740993');

    const created = await postJson(baseUrl, '{"name":"Next","categoryId":1}', ENTERPRISE);
    expect(created.status).toBe(201);
    expect(created.text).toBe('{"id":9007199254740994,"name":"Next","categoryId":1}');
    expect(created.headers.location).toBe('/v1/pets/9007199254740994');
    expect(readFileSync(dataFile, 'utf8')).toContain('\n{"id":9007199254740994,"name":"Next","categoryId":1}\n');
    expect(dataFilePets(dataFile).map((pet) => String(pet.id))).toEqual(['9007199254740993', '9007199254740994']);
  });

  it('answers 500 internal_error naming the file when it turns corrupt while serving', async () => {
    const dataFile = path.join(tempDir(), 'sandbox.json');
    const logLines: string[] = [];
    const { baseUrl } = await start({ dataFile, log: (line) => logLines.push(line) });
    writeFileSync(dataFile, 'not json');
    const reply = await call(baseUrl, '/pets', { key: ENTERPRISE });
    expect(reply.status).toBe(500);
    expect(reply.body).toMatchObject({ code: 'internal_error', status: 500 });
    expect((reply.body as { message: string }).message).toContain(dataFile);
    expect(readFileSync(dataFile, 'utf8')).toBe('not json');
    expect(logLines.some((line) => line.includes('SandboxDataFileError'))).toBe(true);
  });
});
