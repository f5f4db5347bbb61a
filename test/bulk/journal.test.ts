import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { JournalUnwritableError, JournalWriter, defaultJournalPath, readJournal, targetDigest } from '../../src/bulk/journal';
import { type RecordEntry, RecordIndex, type RowIdentity, plannedRows, scanRows } from '../../src/bulk/records';
import { UsageError } from '../../src/errors';
import { tempDir } from '../helpers/temp-dir';

const TARGET = await targetDigest('https://api.example.org/v1', 'key-1');
const AT = '2026-11-25T14:02:00.000Z';
const who = (name: string, id?: string): RowIdentity => ({ source: '/in/intake.csv', ...(id === undefined ? {} : { id }), content: [name, '1', '', 1] });
const sent = (name: string, id?: string): RecordEntry => ({ ...who(name, id), state: 'sent', at: AT });
const created = (identity: RowIdentity, id: number | bigint): RecordEntry => {
  const pet = { id, name: identity.content[0], categoryId: 1 };
  return { ...identity, state: 'created', pet, at: AT };
};
const journalFile = (name = 'j.ndjson') => path.join(tempDir(), name);

/** A journal for TARGET at `file` holding `entries`, closed. */
async function written(file: string, ...entries: RecordEntry[]): Promise<void> {
  const journal = await JournalWriter.open(file, TARGET);
  for (const entry of entries) await journal.append(entry);
  await journal.close();
}

/** The state on record for each name (by id where one is given), read from `file`. */
async function states(file: string, ...rows: Array<string | RowIdentity>): Promise<Array<string | undefined>> {
  const index = new RecordIndex();
  expect(await readJournal(file, TARGET, index)).toBeUndefined();
  return rows.map((row) => (typeof row === 'string' ? index.lookup(who(row), false) : index.lookup(row, true))?.state);
}

const refusal = (file: string) => readJournal(file, TARGET, new RecordIndex());

it('is created 0600 in a 0700 directory; each identity keeps its last entry; int64 ids stay exact', async () => {
  const file = path.join(tempDir(), 'imports', 'j.ndjson');
  const journal = await JournalWriter.open(file, TARGET);
  await Promise.all([journal.append(sent('A')), journal.append(sent('B', 'B-1')), journal.append(sent('C'))]);
  await journal.append(created(who('A'), 9007199254740993n));
  await journal.append({ ...who('B', 'B-1'), state: 'rejected', error: { code: 'invalid_category', message: 'no such category', status: 400 }, at: AT });
  await journal.append({ ...who('C'), state: 'unsent', at: AT });
  await journal.close();
  expect([fs.statSync(file).mode & 0o777, fs.statSync(path.dirname(file)).mode & 0o777]).toEqual([0o600, 0o700]);
  expect(await states(file, 'A', who('B', 'B-1'), 'C')).toEqual(['created', 'rejected', 'unsent']);
  const index = new RecordIndex();
  await readJournal(file, TARGET, index);
  expect(index.lookup(who('A'), false)).toMatchObject({ pet: { id: 9007199254740993n } });
  // The key itself is never written, only a hash that includes it; the spare room is gone once closed.
  expect(fs.readFileSync(file, 'utf8')).not.toContain('key-1');
  expect(fs.readdirSync(path.dirname(file))).toEqual(['j.ndjson']);
});

const UNDER_PROC = 'a folder that cannot be made (under /proc, which says ENOENT though its parent exists)';
it.runIf(fs.existsSync('/proc/self'))(`${UNDER_PROC} is journal_unwritable at once, not a hang`, async () => {
  const opening = JournalWriter.open('/proc/petctl-none/imports/j.ndjson', TARGET);
  await expect(opening).rejects.toMatchObject({ code: 'journal_unwritable', exitCode: 1 });
  const made = path.join(tempDir(), 'a', 'b', 'j.ndjson');
  await written(made, sent('A'));
  const dir = path.dirname(made);
  expect([dir, path.dirname(dir)].map((each) => fs.statSync(each).mode & 0o777)).toEqual([0o700, 0o700]);
}, 5_000);

it('a missing journal reads as empty; a torn last line (killed mid-write) is ignored, swallowing no next entry', async () => {
  const file = journalFile();
  expect(await states(file, 'A')).toEqual([undefined]);
  await written(file, sent('A'));
  fs.appendFileSync(file, '{"source":"/in/intake.csv","content":["A","1","",1],"state":"crea');
  expect(await states(file, 'A')).toEqual(['sent']);
  await written(file, sent('B'));
  expect(await states(file, 'A', 'B')).toEqual(['sent', 'sent']);
});

it('refuses a journal of another server or key (exit 2), and a file that is no journal (unsafe_file, exit 1)', async () => {
  const file = journalFile();
  await written(file);
  await expect(readJournal(file, await targetDigest('https://api.example.org/v1', 'key-2'), new RecordIndex())).rejects.toBeInstanceOf(UsageError);
  const other = journalFile('notes.txt');
  fs.writeFileSync(other, 'hello\n');
  await expect(refusal(other)).rejects.toMatchObject({ code: 'unsafe_file', exitCode: 1 });
  await expect(JournalWriter.open(other, TARGET)).rejects.toMatchObject({ code: 'unsafe_file' });
  expect(fs.readFileSync(other, 'utf8')).toBe('hello\n');
});

it('a journal of a format this petctl does not write (version 1, by row number) is refused unread: unsafe_file', async () => {
  const file = journalFile('v1.ndjson');
  const text = `{"petctlImportJournal":1,"input":"${'a'.repeat(64)}","target":"${TARGET}"}\n{"row":2,"state":"sent"}\n{"row":2,"state":"created","pet":{"id":7,"name":"B","categoryId":1}}\n`;
  fs.writeFileSync(file, text, { mode: 0o600 });
  const added: unknown[] = [];
  const reading = readJournal(file, TARGET, { add: (entry) => added.push(entry) });
  await expect(reading).rejects.toMatchObject({ code: 'unsafe_file', exitCode: 1 });
  expect([added, fs.readFileSync(file, 'utf8')]).toEqual([[], text]);
});

it('the default path depends on the base URL and the key only (one per target), under the state directory', async () => {
  const a = await defaultJournalPath('/state', 'https://a/v1', 'k1');
  expect(path.dirname(a)).toBe(path.join('/state', 'imports'));
  expect(await defaultJournalPath('/state', 'https://a/v1', 'k1')).toBe(a);
  const b = await defaultJournalPath('/state', 'https://b/v1', 'k1');
  expect(new Set([a, b, await defaultJournalPath('/state', 'https://a/v1', 'k2')]).size).toBe(3);
});

it('a line that is neither an entry nor a write cut short stops the reading: journal_damaged at that line, exit 1', async () => {
  const file = journalFile();
  await written(file, ...['A', 'B', 'C'].map((name) => created(who(name), 1)));
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (const [line, damaged] of [
    [3, '\0'.repeat(40)],
    [2, '{"source":"/in/intake.csv","state":"created"}'],
    [3, '{"unexpected":'],
    [4, 'typed over'],
  ] as const) {
    fs.writeFileSync(file, lines.map((text, i) => (i === line - 1 ? damaged : text)).join('\n'));
    await expect(refusal(file)).rejects.toMatchObject({ code: 'journal_damaged', exitCode: 1, line, message: expect.stringContaining(`the journal ${file} is damaged at line ${line};`) });
  }
});

it('a damaged header is journal_damaged at line 1; a file that never was a journal, or one of an unknown format, is still refused as not one (unsafe_file)', async () => {
  const file = journalFile();
  await written(file, created(who('A'), 1));
  const [header, ...rest] = fs.readFileSync(file, 'utf8').split('\n');
  const zeros = '\0'.repeat(header!.length);
  for (const damaged of [zeros, header!.slice(0, 30), 'not a header', Buffer.alloc(10_000)]) {
    fs.writeFileSync(file, typeof damaged === 'string' ? [damaged, ...rest].join('\n') : damaged);
    await expect(refusal(file)).rejects.toMatchObject({ code: 'journal_damaged', line: 1 });
  }
  // A format this petctl does not know is not damage either.
  const unknownFormat = [`{"petctlImportJournal":3,"target":"${TARGET}"}`, ...rest].join('\n');
  for (const notOne of ['my notes\nabout the import\n', unknownFormat]) {
    fs.writeFileSync(file, notOne);
    await expect(refusal(file)).rejects.toMatchObject({ code: 'unsafe_file' });
  }
  // Nor written into: JournalWriter.open refuses a damaged journal as readJournal does.
  fs.writeFileSync(file, [zeros, ...rest].join('\n'));
  await expect(JournalWriter.open(file, TARGET)).rejects.toMatchObject({ code: 'journal_damaged' });
});

it.each([
  ['a header line that is not whole', '{"petctlImportJour'],
  ['zeros no longer than a header, without a newline', '\0'.repeat(60)],
])('%s: a creation cut short, read as empty and started afresh', async (_, text) => {
  const file = journalFile();
  fs.writeFileSync(file, text, { mode: 0o600 });
  expect(await states(file, 'A')).toEqual([undefined]);
  await written(file, sent('A'));
  expect(fs.readFileSync(file, 'utf8')).not.toContain('\0');
  expect(await states(file, 'A')).toEqual(['sent']);
});

it('a journal deleted while open stops the import, and is written again whole: its earlier records, this run\'s, the refused "sent" as "unsent"', async () => {
  const file = path.join(tempDir(), 'imports', 'j.ndjson');
  await written(file, created(who('Old'), 1));
  const journal = await JournalWriter.open(file, TARGET);
  await journal.append(created(who('A'), 2));
  fs.rmSync(path.dirname(file), { recursive: true });
  await expect(journal.append(sent('B'))).rejects.toMatchObject({ code: 'journal_unwritable', exitCode: 1, deleted: 'restored' });
  await expect(journal.append(sent('C'))).rejects.toBeInstanceOf(JournalUnwritableError);
  // An answer that comes after is written again with the rest, the refused "sent" still "unsent".
  await expect(journal.append(created(who('D'), 3))).rejects.toMatchObject({ deleted: 'restored' });
  await journal.close();
  expect(await states(file, 'Old', 'A', 'B', 'D')).toEqual(['created', 'created', 'unsent', 'created']);
});

const SEND = { action: 'send' };
const KITTEN = created(who('Kitten'), 1);
const REX = created(who('Rex'), 1);
const REX_A1 = created(who('Rex', 'A-1'), 1);
const with_ = (identity: RowIdentity, change: Partial<RowIdentity>): RowIdentity => ({ ...identity, ...change });
const elsewhere = (identity: RowIdentity) => with_(identity, { source: '/other.csv' });
const A1 = elsewhere(who('Rex', 'A-1'));

// What a row is planned: skip (unchanged), changed (skipped, its other fields changed since), or its action.
it.each<[string, RecordEntry, RowIdentity, boolean, string]>([
  ['the same content, occurrence and source', KITTEN, who('Kitten'), false, 'skip'],
  ['another occurrence', KITTEN, with_(who('Kitten'), { content: ['Kitten', '1', '', 2] }), false, 'send'],
  ['another source', KITTEN, with_(who('Kitten'), { source: '-' }), false, 'send'],
  ['--id-column: its id, from any source', REX_A1, A1, true, 'skip'],
  ['--id-column: its id, fields changed', REX_A1, with_(A1, { content: ['Rex', '1', 'sold', 1] }), true, 'changed'],
  ['--id-column: another id', REX_A1, elsewhere(who('Rex', 'A-2')), true, 'send'],
  ['--id-column: what its source created before --id-column, by content', REX, who('Rex', 'A-1'), true, 'skip'],
  ['--id-column: that from another source', REX, A1, true, 'send'],
  ['--id-column: another id, the same content', created(who('Bo', 'B-1'), 2), who('Bo', 'B-2'), true, 'send'],
  // --retry-unknown looks for it first: unknown-match.test.ts.
  ['"sent" without an answer: left alone', sent('A'), who('A'), false, 'unknown'],
  ['"rejected": resent', { ...who('A'), state: 'rejected', error: { code: 'x' }, at: AT }, who('A'), false, 'send'],
  ['"unsent": resent', { ...who('A'), state: 'unsent', at: AT }, who('A'), false, 'send'],
])('records: %s: %s', (_title, record, identity, byId, expected) => {
  const index = new RecordIndex();
  index.add(record);
  const plan = index.plan(identity, { byId });
  if (expected === 'send') expect(plan).toEqual(SEND);
  else if (expected === 'unknown') expect(plan).toMatchObject({ action: 'unknown' });
  else expect(plan).toMatchObject({ action: 'skip', changed: expected === 'changed' });
});

it('records: a --new import that did not end is resumed: only its own records count', () => {
  const index = new RecordIndex();
  const { source } = who('Kitten');
  const second = { ...who('Kitten'), content: ['Kitten', '1', '', 2] } as RowIdentity;
  index.add(created(who('Kitten'), 1));
  index.add({ source, state: 'begin', run: 'r1', at: AT });
  index.add({ ...created(second, 5), run: 'r1' });
  expect(index.openRun(source)).toBe('r1');
  expect(index.plan(who('Kitten'), { byId: false, run: 'r1' })).toEqual(SEND);
  expect(index.plan(second, { byId: false, run: 'r1' })).toMatchObject({ action: 'skip' });
  index.add({ source, state: 'end', run: 'r1', at: AT });
  expect(index.openRun(source)).toBeUndefined();
});

it('a rerun of an edited file: rows moved, repeated, added or fixed are matched by content and order, not by line', async () => {
  const index = new RecordIndex();
  // The first run created these (Rex twice); Ziggy was invalid and not sent.
  for (const [name, occurrence] of [['Kitten', 1], ['Rex', 1], ['Rex', 2], ['Bo', 1], ['Mia', 1]] as const) {
    index.add(created({ ...who(name), content: [name, '1', '', occurrence] }, 1));
  }
  // Edited: Mia moved to the top, Bo deleted, Ziggy fixed, a third Rex and Nova appended.
  const edited = ['Mia', 'Kitten', 'Rex', 'Ziggy', 'Rex', 'Rex', 'Nova'];
  async function* rows() {
    for (const [i, name] of edited.entries()) yield { row: i + 1, line: i + 2, newPet: { name, categoryId: 1 } };
  }
  const plan = { source: who('x').source!, byId: false, retryUnknown: false };
  const scan = await scanRows(rows(), index, plan, new AbortController().signal, { invalid: () => {} });
  expect(scan).toMatchObject({ rows: 7, toSend: 3, skippedCount: 4 });
  const planned = [];
  for await (const row of plannedRows(rows(), index, plan, scan.duplicates)) planned.push(`${row.newPet!.name}:${row.plan!.action}`);
  expect(planned).toEqual(['Mia:skip', 'Kitten:skip', 'Rex:skip', 'Ziggy:send', 'Rex:skip', 'Rex:send', 'Nova:send']);
});

it('records: the ids of every created entry, a --new import\'s too, are kept for --retry-unknown only', () => {
  const entries = [created(who('Kitten'), 1), { ...created(who('Kitten'), 7), run: 'r1' }, sent('Rex')];
  const forRetry = new RecordIndex(true);
  const plain = new RecordIndex();
  for (const entry of entries) {
    forRetry.add(entry);
    plain.add(entry);
  }
  expect([...forRetry.createdIds]).toEqual(['1', '7']);
  expect(plain.createdIds.size).toBe(0);
});
