import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalUnwritableError, JournalWriter, defaultJournalPath, readJournal, targetDigest } from '../../src/bulk/journal';
import { type RecordEntry, RecordIndex, type RowIdentity } from '../../src/bulk/records';
import { UsageError } from '../../src/errors';
import { tempDir } from '../helpers/temp-dir';

const TARGET = await targetDigest('https://api.example.org/v1', 'key-1');
const AT = '2026-11-25T14:02:00.000Z';
const who = (name: string, id?: string): RowIdentity => ({ source: '/in/intake.csv', ...(id === undefined ? {} : { id }), content: [name, '1', '', 1] });

/** A journal for TARGET at `file` holding `entries`, closed. */
async function written(file: string, ...entries: RecordEntry[]): Promise<void> {
  const journal = await JournalWriter.open(file, TARGET);
  for (const entry of entries) await journal.append(entry);
  await journal.close();
}

async function indexOf(file: string): Promise<RecordIndex> {
  const index = new RecordIndex();
  expect(await readJournal(file, TARGET, index)).toBeUndefined();
  return index;
}

describe('journal', () => {
  it('is created 0600 in a 0700 directory; each identity keeps its last entry; int64 ids stay exact', async () => {
    const file = path.join(tempDir(), 'imports', 'j.ndjson');
    const journal = await JournalWriter.open(file, TARGET);
    await Promise.all([journal.append({ ...who('A'), state: 'sent', at: AT }), journal.append({ ...who('B', 'B-1'), state: 'sent', at: AT }), journal.append({ ...who('C'), state: 'sent', at: AT })]);
    await journal.append({ ...who('A'), state: 'created', pet: { id: 9007199254740993n, name: 'A', categoryId: 1 }, at: AT });
    await journal.append({ ...who('B', 'B-1'), state: 'rejected', error: { code: 'invalid_category', message: 'no such category', status: 400 }, at: AT });
    await journal.append({ ...who('C'), state: 'unsent', at: AT });
    await journal.close();

    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const index = await indexOf(file);
    expect(index.lookup(who('A'), false)).toMatchObject({ state: 'created', pet: { id: 9007199254740993n } });
    expect(index.lookup(who('B', 'B-1'), true)).toMatchObject({ state: 'rejected' });
    expect(index.lookup(who('C'), false)).toMatchObject({ state: 'unsent' });
    // The key itself is never written, only a hash that includes it; the spare room is gone once closed.
    expect(fs.readFileSync(file, 'utf8')).not.toContain('key-1');
    expect(fs.readdirSync(path.dirname(file))).toEqual(['j.ndjson']);
  });

  it('a missing journal reads as empty', async () => {
    const index = await indexOf(path.join(tempDir(), 'none.ndjson'));
    expect(index.lookup(who('A'), false)).toBeUndefined();
  });

  it('a torn last line (killed mid-write) is ignored, and the next entry is not swallowed by it', async () => {
    const file = path.join(tempDir(), 'j.ndjson');
    await written(file, { ...who('A'), state: 'sent', at: AT });
    fs.appendFileSync(file, '{"source":"/in/intake.csv","content":["A","1","",1],"state":"crea');
    expect((await indexOf(file)).lookup(who('A'), false)).toMatchObject({ state: 'sent' });

    await written(file, { ...who('B'), state: 'sent', at: AT });
    const index = await indexOf(file);
    expect(index.lookup(who('A'), false)).toMatchObject({ state: 'sent' });
    expect(index.lookup(who('B'), false)).toMatchObject({ state: 'sent' });
  });

  it('refuses a journal of another server or key (exit 2), and a file that is no journal (unsafe_file, exit 1)', async () => {
    const file = path.join(tempDir(), 'j.ndjson');
    await written(file);
    await expect(readJournal(file, await targetDigest('https://api.example.org/v1', 'key-2'), new RecordIndex())).rejects.toBeInstanceOf(UsageError);
    const other = path.join(tempDir(), 'notes.txt');
    fs.writeFileSync(other, 'hello\n');
    await expect(readJournal(other, TARGET, new RecordIndex())).rejects.toMatchObject({ code: 'unsafe_file', exitCode: 1 });
    await expect(JournalWriter.open(other, TARGET)).rejects.toMatchObject({ code: 'unsafe_file' });
    expect(fs.readFileSync(other, 'utf8')).toBe('hello\n');
  });

  it('a journal of a format this petctl does not write (version 1, by row number) is refused unread: unsafe_file', async () => {
    const file = path.join(tempDir(), 'v1.ndjson');
    const text = `{"petctlImportJournal":1,"input":"${'a'.repeat(64)}","target":"${TARGET}"}\n{"row":2,"state":"sent"}\n{"row":2,"state":"created","pet":{"id":7,"name":"B","categoryId":1}}\n`;
    fs.writeFileSync(file, text, { mode: 0o600 });
    const added: unknown[] = [];
    await expect(readJournal(file, TARGET, { add: (entry) => added.push(entry) })).rejects.toMatchObject({ code: 'unsafe_file', exitCode: 1 });
    expect(added).toEqual([]);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });

  it('the default path depends on the base URL and the key only (one per target), under the state directory', async () => {
    const a = await defaultJournalPath('/state', 'https://a/v1', 'k1');
    expect(path.dirname(a)).toBe(path.join('/state', 'imports'));
    expect(await defaultJournalPath('/state', 'https://a/v1', 'k1')).toBe(a);
    expect(new Set([a, await defaultJournalPath('/state', 'https://b/v1', 'k1'), await defaultJournalPath('/state', 'https://a/v1', 'k2')]).size).toBe(3);
  });

  it('a line that is neither an entry nor a write cut short stops the reading: journal_damaged at that line, exit 1', async () => {
    const file = path.join(tempDir(), 'j.ndjson');
    await written(file, ...['A', 'B', 'C'].map((name): RecordEntry => ({ ...who(name), state: 'created', pet: { id: 1, name, categoryId: 1 }, at: AT })));
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    for (const [line, damaged] of [
      [3, '\0'.repeat(40)],
      [2, '{"source":"/in/intake.csv","state":"created"}'],
      [3, '{"unexpected":'],
      [4, 'typed over'],
    ] as const) {
      fs.writeFileSync(file, lines.map((text, i) => (i === line - 1 ? damaged : text)).join('\n'));
      await expect(readJournal(file, TARGET, new RecordIndex())).rejects.toMatchObject({ code: 'journal_damaged', exitCode: 1, line, message: expect.stringContaining(`the journal ${file} is damaged at line ${line};`) });
    }
  });

  it('a damaged header is journal_damaged at line 1; a file that never was a journal, or one of an unknown format, is still refused as not one (unsafe_file)', async () => {
    const file = path.join(tempDir(), 'j.ndjson');
    await written(file, { ...who('A'), state: 'created', pet: { id: 1, name: 'A', categoryId: 1 }, at: AT });
    const [header, ...rest] = fs.readFileSync(file, 'utf8').split('\n');
    for (const damaged of ['\0'.repeat(header!.length), header!.slice(0, 30), 'not a header']) {
      fs.writeFileSync(file, [damaged, ...rest].join('\n'));
      await expect(readJournal(file, TARGET, new RecordIndex())).rejects.toMatchObject({ code: 'journal_damaged', line: 1 });
    }
    fs.writeFileSync(file, Buffer.alloc(10_000));
    await expect(readJournal(file, TARGET, new RecordIndex())).rejects.toMatchObject({ code: 'journal_damaged', line: 1 });
    fs.writeFileSync(file, 'my notes\nabout the import\n');
    await expect(readJournal(file, TARGET, new RecordIndex())).rejects.toMatchObject({ code: 'unsafe_file' });
    // A format this petctl does not know is not damage either.
    fs.writeFileSync(file, [`{"petctlImportJournal":3,"target":"${TARGET}"}`, ...rest].join('\n'));
    await expect(readJournal(file, TARGET, new RecordIndex())).rejects.toMatchObject({ code: 'unsafe_file' });
    // Nor written into: JournalWriter.open refuses a damaged journal as readJournal does.
    fs.writeFileSync(file, ['\0'.repeat(header!.length), ...rest].join('\n'));
    await expect(JournalWriter.open(file, TARGET)).rejects.toMatchObject({ code: 'journal_damaged' });
  });

  it.each([
    ['a header line that is not whole', '{"petctlImportJour'],
    ['zeros no longer than a header, without a newline', '\0'.repeat(60)],
  ])('%s: a creation cut short, read as empty and started afresh', async (_, text) => {
    const file = path.join(tempDir(), 'j.ndjson');
    fs.writeFileSync(file, text, { mode: 0o600 });
    expect((await indexOf(file)).lookup(who('A'), false)).toBeUndefined();
    await written(file, { ...who('A'), state: 'sent', at: AT });
    expect(fs.readFileSync(file, 'utf8')).not.toContain('\0');
    expect((await indexOf(file)).lookup(who('A'), false)).toMatchObject({ state: 'sent' });
  });

  it('a journal deleted while open stops the import, and is written again whole: its earlier records, this run\'s, the refused "sent" as "unsent"', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'imports', 'j.ndjson');
    const earlier: RecordEntry = { ...who('Old'), state: 'created', pet: { id: 1, name: 'Old', categoryId: 1 }, at: AT };
    await written(file, earlier);
    const journal = await JournalWriter.open(file, TARGET);
    await journal.append({ ...who('A'), state: 'created', pet: { id: 2, name: 'A', categoryId: 1 }, at: AT });
    fs.rmSync(path.dirname(file), { recursive: true });
    await expect(journal.append({ ...who('B'), state: 'sent', at: AT })).rejects.toMatchObject({ code: 'journal_unwritable', exitCode: 1, deleted: 'restored' });
    await expect(journal.append({ ...who('C'), state: 'sent', at: AT })).rejects.toBeInstanceOf(JournalUnwritableError);
    // An answer that comes after is written again with the rest, the refused "sent" still "unsent".
    await expect(journal.append({ ...who('D'), state: 'created', pet: { id: 3, name: 'D', categoryId: 1 }, at: AT })).rejects.toMatchObject({ deleted: 'restored' });
    await journal.close();
    const index = await indexOf(file);
    expect(index.lookup(who('Old'), false)).toMatchObject({ state: 'created' });
    expect(index.lookup(who('A'), false)).toMatchObject({ state: 'created' });
    expect(index.lookup(who('B'), false)).toMatchObject({ state: 'unsent' });
    expect(index.lookup(who('D'), false)).toMatchObject({ state: 'created' });
  });
});

describe('records', () => {
  const created = (identity: RowIdentity, id: number, name = identity.content[0]): RecordEntry => ({ ...identity, state: 'created', pet: { id, name, categoryId: 1 }, at: AT });

  it('without --id-column a row matches a record of the same content and occurrence from the same source only', () => {
    const index = new RecordIndex();
    index.add(created(who('Kitten'), 1));
    const plan = { byId: false };
    expect(index.plan(who('Kitten'), plan)).toMatchObject({ action: 'skip', changed: false });
    expect(index.plan({ ...who('Kitten'), content: ['Kitten', '1', '', 2] }, plan)).toEqual({ action: 'send' });
    expect(index.plan({ ...who('Kitten'), source: '-' }, plan)).toEqual({ action: 'send' });
  });

  it('with --id-column a row matches its id from any source; other fields changed since are flagged', () => {
    const index = new RecordIndex();
    index.add(created(who('Rex', 'A-1'), 1));
    const plan = { byId: true };
    expect(index.plan({ source: '/other.csv', id: 'A-1', content: ['Rex', '1', '', 1] }, plan)).toMatchObject({ action: 'skip', changed: false });
    expect(index.plan({ source: '/other.csv', id: 'A-1', content: ['Rex', '1', 'sold', 1] }, plan)).toMatchObject({ action: 'skip', changed: true });
    expect(index.plan({ source: '/other.csv', id: 'A-2', content: ['Rex', '1', '', 1] }, plan)).toEqual({ action: 'send' });
  });

  it('with --id-column, a row the same source created before --id-column was used is known by its content', () => {
    const index = new RecordIndex();
    index.add(created(who('Rex'), 1));
    index.add(created(who('Bo', 'B-1'), 2));
    const plan = { byId: true };
    expect(index.plan(who('Rex', 'A-1'), plan)).toMatchObject({ action: 'skip', changed: false });
    expect(index.plan({ ...who('Rex', 'A-1'), source: '/other.csv' }, plan)).toEqual({ action: 'send' });
    // A record with another id is another animal.
    expect(index.plan(who('Bo', 'B-2'), plan)).toEqual({ action: 'send' });
  });

  it('"sent" without an answer is left alone (--retry-unknown looks for it first: unknown-match.test.ts); "rejected" and "unsent" are sent again', () => {
    const index = new RecordIndex();
    index.add({ ...who('A'), state: 'sent', at: AT });
    index.add({ ...who('B'), state: 'rejected', error: { code: 'x' }, at: AT });
    index.add({ ...who('C'), state: 'unsent', at: AT });
    expect(index.plan(who('A'), { byId: false })).toMatchObject({ action: 'unknown' });
    expect(index.plan(who('B'), { byId: false })).toEqual({ action: 'send' });
    expect(index.plan(who('C'), { byId: false })).toEqual({ action: 'send' });
  });

  it('a --new import that did not end is resumed: only its own records count', () => {
    const index = new RecordIndex();
    index.add(created(who('Kitten'), 1));
    index.add({ source: who('Kitten').source, state: 'begin', run: 'r1', at: AT });
    index.add({ ...created({ ...who('Kitten'), content: ['Kitten', '1', '', 2] }, 5), run: 'r1' });
    expect(index.openRun(who('Kitten').source)).toBe('r1');
    const plan = { byId: false, run: 'r1' };
    expect(index.plan(who('Kitten'), plan)).toEqual({ action: 'send' });
    expect(index.plan({ ...who('Kitten'), content: ['Kitten', '1', '', 2] }, plan)).toMatchObject({ action: 'skip' });
    index.add({ source: who('Kitten').source, state: 'end', run: 'r1', at: AT });
    expect(index.openRun(who('Kitten').source)).toBeUndefined();
  });
});
