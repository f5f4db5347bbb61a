import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalWriter, defaultJournalPath, readJournal, targetDigest } from '../../src/bulk/journal';
import { UsageError } from '../../src/errors';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-journal-'));
  dirs.push(dir);
  return dir;
}

const HEADER = { input: 'a'.repeat(64), target: targetDigest('https://api.example.org/v1', 'key-1') };

describe('journal', () => {
  it('is created 0600 in a 0700 directory, and each row keeps its last entry', async () => {
    const file = path.join(tempDir(), 'imports', 'j.ndjson');
    const journal = await JournalWriter.open(file, HEADER);
    await Promise.all([
      journal.append({ row: 1, state: 'sent' }),
      journal.append({ row: 2, state: 'sent' }),
      journal.append({ row: 3, state: 'sent' }),
    ]);
    await journal.append({ row: 1, state: 'created', pet: { id: 9007199254740993n, name: 'A', categoryId: 1 } });
    await journal.append({ row: 2, state: 'rejected', error: { code: 'invalid_category', message: 'no such category', status: 400 } });
    await journal.append({ row: 3, state: 'unsent' });
    await journal.close();

    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const entries = await readJournal(file, HEADER);
    expect(Object.fromEntries(entries)).toEqual({
      1: { row: 1, state: 'created', pet: { id: 9007199254740993n, name: 'A', categoryId: 1 } },
      2: { row: 2, state: 'rejected', error: { code: 'invalid_category', message: 'no such category', status: 400 } },
      3: { row: 3, state: 'unsent' },
    });
    // The key itself is never written, only a hash that includes it.
    expect(fs.readFileSync(file, 'utf8')).not.toContain('key-1');
  });

  it('a missing journal reads as empty', async () => {
    expect((await readJournal(path.join(tempDir(), 'none.ndjson'), HEADER)).size).toBe(0);
  });

  it('a torn last line (killed mid-write) is ignored, and the next entry is not swallowed by it', async () => {
    const file = path.join(tempDir(), 'j.ndjson');
    const journal = await JournalWriter.open(file, HEADER);
    await journal.append({ row: 1, state: 'sent' });
    await journal.close();
    fs.appendFileSync(file, '{"row":1,"state":"crea');
    expect(Object.fromEntries(await readJournal(file, HEADER))).toEqual({ 1: { row: 1, state: 'sent' } });

    const again = await JournalWriter.open(file, HEADER);
    await again.append({ row: 2, state: 'sent' });
    await again.close();
    expect(Object.fromEntries(await readJournal(file, HEADER))).toEqual({ 1: { row: 1, state: 'sent' }, 2: { row: 2, state: 'sent' } });
  });

  it('refuses a journal written for another input, another server or key, or no journal at all (exit 2)', async () => {
    const file = path.join(tempDir(), 'j.ndjson');
    await (await JournalWriter.open(file, HEADER)).close();
    await expect(readJournal(file, { ...HEADER, input: 'b'.repeat(64) })).rejects.toThrow(/belongs to another input/);
    await expect(readJournal(file, { ...HEADER, target: targetDigest('https://api.example.org/v1', 'key-2') })).rejects.toThrow(/another base URL or API key/);
    const other = path.join(tempDir(), 'notes.txt');
    fs.writeFileSync(other, 'hello\n');
    await expect(readJournal(other, HEADER)).rejects.toBeInstanceOf(UsageError);
  });

  it('the default path depends on the input, the base URL and the key, and lives under the state directory', () => {
    const a = defaultJournalPath('/state', 'i1', 'https://a/v1', 'k1');
    expect(path.dirname(a)).toBe(path.join('/state', 'imports'));
    expect(defaultJournalPath('/state', 'i1', 'https://a/v1', 'k1')).toBe(a);
    expect(new Set([a, defaultJournalPath('/state', 'i2', 'https://a/v1', 'k1'), defaultJournalPath('/state', 'i1', 'https://b/v1', 'k1'), defaultJournalPath('/state', 'i1', 'https://a/v1', 'k2')]).size).toBe(4);
  });
});

describe('journal cut short at creation', () => {
  it('a journal whose header line is not whole counts as empty and is started afresh', async () => {
    const file = path.join(tempDir(), 'j.ndjson');
    fs.writeFileSync(file, '{"petctlImportJour', { mode: 0o600 });
    expect((await readJournal(file, HEADER)).size).toBe(0);
    const journal = await JournalWriter.open(file, HEADER);
    await journal.append({ row: 1, state: 'sent' });
    await journal.close();
    expect(Object.fromEntries(await readJournal(file, HEADER))).toEqual({ 1: { row: 1, state: 'sent' } });
  });
});
