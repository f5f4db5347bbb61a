import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';

import type { RateLimitState } from '../../src/sandbox/rate-limiter';
import { createMemoryStore, openFileStore, SandboxDataFileError } from '../../src/sandbox/store';
import { parseJson } from '../../src/schemas/json';
import { PET_STATUSES, type Pet } from '../../src/schemas/pet';
import { tempDir } from './helpers';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});
function scratch(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return dir;
}

function fileIds(file: string): bigint[] {
  const document = parseJson(readFileSync(file, 'utf8')) as { pets: Pet[] };
  return document.pets.map((pet) => BigInt(pet.id));
}

describe('a fresh store', () => {
  it('holds a dozen sample animals across all three statuses and categories 1..4', async () => {
    const store = createMemoryStore();
    const pets = await store.list({ limit: 100 });
    expect(pets).toHaveLength(12);
    expect(pets.map((pet) => pet.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(new Set(pets.map((pet) => pet.status))).toEqual(new Set(PET_STATUSES));
    expect(new Set(pets.map((pet) => pet.categoryId))).toEqual(new Set([1, 2, 3, 4]));
    expect(pets.every((pet) => typeof pet.name === 'string' && pet.name.length > 1)).toBe(true);
  });

  it('lists in ascending id order, filtered by status, at most limit', async () => {
    const store = createMemoryStore({
      pets: [
        { id: 9007199254740993n, name: 'Big', categoryId: 1, status: 'sold' },
        { id: 5, name: 'Five', categoryId: 1, status: 'sold' },
        { id: 7, name: 'Seven', categoryId: 2, status: 'available' },
      ],
    });
    expect((await store.list({ limit: 10 })).map((pet) => pet.name)).toEqual(['Five', 'Seven', 'Big']);
    expect((await store.list({ limit: 10, status: 'sold' })).map((pet) => pet.name)).toEqual(['Five', 'Big']);
    expect((await store.list({ limit: 1, status: 'sold' })).map((pet) => pet.name)).toEqual(['Five']);
    expect(await store.list({ limit: 10, status: 'pending' })).toEqual([]);
  });

  it('assigns max(id) + 1, with bigint arithmetic above 2^53', async () => {
    const store = createMemoryStore({ pets: [{ id: 9007199254740993n, name: 'Big', categoryId: 1 }] });
    const added = await store.add({ name: 'Next', categoryId: 2 });
    expect(added).toEqual({ id: 9007199254740994n, name: 'Next', categoryId: 2 });
    expect(await store.get(9007199254740994n)).toEqual(added);
  });
});

describe('a file-backed store', () => {
  it('creates the file with the sample animals, mode 0600, in a new 0700 directory', async () => {
    const file = path.join(scratch(), 'nested', 'deeper', 'sandbox.json');
    const store = await openFileStore(file);
    expect(store.dataFile).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(fileIds(file)).toHaveLength(12);
    const document = parseJson(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(document.version).toBe(1);
  });

  it('keeps 0600 after every write', async () => {
    const file = path.join(scratch(), 'sandbox.json');
    const store = await openFileStore(file);
    await store.add({ name: 'Rex II', categoryId: 1 });
    await store.updateRateLimits((state) => {
      state.k = { minuteStart: 1, minuteCount: 1, dayStart: 1, dayCount: 1, strikes: 0 };
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('persists animals across reopening', async () => {
    const file = path.join(scratch(), 'sandbox.json');
    const first = await openFileStore(file);
    const added = await first.add({ name: 'Persisted', categoryId: 3, status: 'pending' });
    const second = await openFileStore(file);
    expect(await second.get(BigInt(added.id))).toEqual({ id: 13, name: 'Persisted', categoryId: 3, status: 'pending' });
  });

  it('reads and writes int64 ids above 2^53 digit for digit', async () => {
    const file = path.join(scratch(), 'sandbox.json');
    writeFileSync(
      file,
      '{"version":1,"pets":[{"id":9007199254740993,"name":"Big","categoryId":9223372036854775807,"status":"sold"}]}',
    );
    const store = await openFileStore(file);
    expect(await store.get(9007199254740993n)).toEqual({
      id: 9007199254740993n,
      name: 'Big',
      categoryId: 9223372036854775807n,
      status: 'sold',
    });
    await store.add({ name: 'After', categoryId: 1 });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"id": 9007199254740993');
    expect(text).toContain('"categoryId": 9223372036854775807');
    expect(text).toContain('"id": 9007199254740994');
  });

  it('refuses to go past the largest int64', async () => {
    const file = path.join(scratch(), 'sandbox.json');
    writeFileSync(file, '{"pets":[{"id":9223372036854775807,"name":"Last","categoryId":1}]}');
    const store = await openFileStore(file);
    await expect(store.add({ name: 'Overflow', categoryId: 1 })).rejects.toThrow(/int64/);
  });

  it('treats an empty file as new and seeds it', async () => {
    const file = path.join(scratch(), 'sandbox.json');
    writeFileSync(file, '  \n');
    await openFileStore(file);
    expect(fileIds(file)).toHaveLength(12);
  });

  it.each([
    ['not JSON', '{"pets": [', /is not valid JSON/],
    ['pets not an array', '{"pets": {}}', /not a petctl sandbox data file at pets/],
    ['an animal without a name', '{"pets": [{"id": 1, "categoryId": 1}]}', /at pets\.0\.name/],
    ['a fractional id', '{"pets": [{"id": 1.5, "name": "x", "categoryId": 1}]}', /at pets\.0\.id/],
    ['a duplicate id', '{"pets": [{"id": 1, "name": "a", "categoryId": 1}, {"id": 1, "name": "b", "categoryId": 1}]}', /holds id 1 twice/],
    ['an unknown version', '{"version": 2, "pets": []}', /version/],
  ])('fails clearly, naming the file, on %s, and leaves the file alone', async (_case, content, pattern) => {
    const file = path.join(scratch(), 'sandbox.json');
    writeFileSync(file, content);
    const opening = openFileStore(file);
    await expect(opening).rejects.toBeInstanceOf(SandboxDataFileError);
    await expect(opening).rejects.toThrow(pattern);
    await expect(opening).rejects.toThrow(file);
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it('fails on a file that became corrupt after opening, without overwriting it', async () => {
    const file = path.join(scratch(), 'sandbox.json');
    const store = await openFileStore(file);
    writeFileSync(file, 'garbage');
    await expect(store.list({ limit: 5 })).rejects.toThrow(file);
    await expect(store.add({ name: 'Lost?', categoryId: 1 })).rejects.toBeInstanceOf(SandboxDataFileError);
    expect(readFileSync(file, 'utf8')).toBe('garbage');
  });

  it('keeps unknown top-level fields', async () => {
    const file = path.join(scratch(), 'sandbox.json');
    writeFileSync(file, '{"pets": [], "note": "hand-made"}');
    const store = await openFileStore(file);
    await store.add({ name: 'Only', categoryId: 1 });
    expect((parseJson(readFileSync(file, 'utf8')) as Record<string, unknown>).note).toBe('hand-made');
  });

  it('shares rate-limit state through the file, unless told not to', async () => {
    const file = path.join(scratch(), 'sandbox.json');
    const one = await openFileStore(file);
    const two = await openFileStore(file);
    const memoryOnly = await openFileStore(file, { persistRateLimits: false });
    const bump = (state: RateLimitState): number => {
      state.k ??= { minuteStart: 0, minuteCount: 0, dayStart: 0, dayCount: 0, strikes: 0 };
      state.k.minuteCount += 1;
      return state.k.minuteCount;
    };
    expect(await one.updateRateLimits(bump)).toBe(1);
    expect(await two.updateRateLimits(bump)).toBe(2);
    expect(await memoryOnly.updateRateLimits(bump)).toBe(1);
    expect(await one.updateRateLimits(bump)).toBe(3);
  });

  it('loses no animal when two stores in one process add concurrently', async () => {
    const file = path.join(scratch(), 'sandbox.json');
    const [one, two] = await Promise.all([openFileStore(file), openFileStore(file)]);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => [
        one.add({ name: `one-${i}`, categoryId: 1 }),
        two.add({ name: `two-${i}`, categoryId: 2 }),
      ]).flat(),
    );
    const pets = await one.list({ limit: 100 });
    expect(pets).toHaveLength(52);
    expect(new Set(pets.map((pet) => pet.id)).size).toBe(52);
    expect(pets.filter((pet) => pet.name.startsWith('one-') || pet.name.startsWith('two-'))).toHaveLength(40);
  });

  it('loses no animal when two processes add to one file at the same time', async () => {
    const dir = scratch();
    const bundle = path.join(dir, 'store.cjs');
    await build({
      entryPoints: [path.join(repoRoot, 'src/sandbox/store.ts')],
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
    const names = (parseJson(readFileSync(file, 'utf8')) as { pets: Pet[] }).pets.map((pet) => pet.name);
    for (const label of ['a', 'b']) {
      for (let i = 0; i < 25; i += 1) expect(names).toContain(`${label}-${i}`);
    }
  }, 20_000);
});
