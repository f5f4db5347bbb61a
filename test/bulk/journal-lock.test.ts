import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli';
import { type LockFlavour, journalHolder, lockAddress, lockJournal, tryLockJournal } from '../../src/bulk/journal-lock';

/**
 * The journal's lock, on both of the flavours Linux can run: the abstract
 * socket petctl uses here, and the socket file beside the journal it uses on
 * macOS (whose file outlives a killed holder). Windows' named pipe is the
 * abstract socket's behaviour under another name.
 */

/** A process holding `address` as petctl does, until killed. */
async function foreignHolder(address: string): Promise<import('node:child_process').ChildProcess> {
  const script = `const net = require('node:net');
    const server = net.createServer((c) => c.end(JSON.stringify({ pid: process.pid, source: 'rows.csv' }) + '\\n'));
    server.listen({ path: JSON.parse(process.env.ADDRESS) }, () => console.log('ready'));`;
  const child = spawn(process.execPath, ['-e', script], { env: { ADDRESS: JSON.stringify(address) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the holder ended (${code})`)));
  });
  return child;
}

function killed(child: import('node:child_process').ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe.each<LockFlavour>(['abstract', 'file'])('the journal lock (%s)', (flavour) => {
  it('a second import is told who holds the journal (pid, file); once released it is free and taken', async () => {
    const journal = path.join(tempDir(), 'imports', 'journal.ndjson');
    const first = await tryLockJournal(journal, { source: 'rows.csv' }, flavour);
    expect(first).toHaveProperty('held');

    expect(await tryLockJournal(journal, { source: 'other.csv' }, flavour)).toEqual({ busy: { pid: process.pid, source: 'rows.csv' } });
    expect(await journalHolder(journal, flavour)).toEqual({ pid: process.pid, source: 'rows.csv' });

    await (first as { held: { release(): Promise<void> } }).held.release();
    expect(await journalHolder(journal, flavour)).toBeUndefined();
    const second = await tryLockJournal(journal, { source: 'other.csv' }, flavour);
    expect(second).toHaveProperty('held');
    await (second as { held: { release(): Promise<void> } }).held.release();
  });

  it('a holder killed with SIGKILL leaves nothing held: the next import takes the lock at once', async () => {
    const journal = path.join(tempDir(), 'journal.ndjson');
    const holder = await foreignHolder(await lockAddress(journal, flavour));
    expect(await tryLockJournal(journal, {}, flavour)).toEqual({ busy: { pid: holder.pid, source: 'rows.csv' } });

    await killed(holder);
    // A socket file stays behind a killed holder; the lock is taken all the same.
    if (flavour === 'file') expect(fs.existsSync(await lockAddress(journal, flavour))).toBe(true);
    const taken = await tryLockJournal(journal, {}, flavour);
    expect(taken).toHaveProperty('held');
    await (taken as { held: { release(): Promise<void> } }).held.release();
  });

  it('two spellings of one journal (relative, through a symlinked folder) are one lock', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'real'));
    fs.symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
    const held = await tryLockJournal(path.join(dir, 'real', 'j.ndjson'), { source: '-' }, flavour);
    expect(held).toHaveProperty('held');
    const relative = path.relative(process.cwd(), path.join(dir, 'link', 'j.ndjson'));
    expect(await tryLockJournal(relative, {}, flavour)).toEqual({ busy: { pid: process.pid, source: '-' } });
    await (held as { held: { release(): Promise<void> } }).held.release();
  });
});

it('a lock that cannot be made (its folder is a file) is journal_unwritable, exit 1, naming the journal', async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'not-a-folder'), '');
  const journal = path.join(dir, 'not-a-folder', 'j.ndjson');
  await expect(tryLockJournal(journal, {}, 'file')).rejects.toMatchObject({
    code: 'journal_unwritable',
    exitCode: 1,
    message: expect.stringMatching(new RegExp(`^cannot write the journal ${journal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: its lock could not be made: `)),
  });
});

describe('waiting for the journal', () => {
  /** A clock that moves only when the waiter sleeps. */
  function fakeWait(maxWaitMs: number) {
    let now = 0;
    const sleeps: number[] = [];
    const told: unknown[] = [];
    return {
      sleeps,
      told,
      wait: {
        maxWaitMs,
        flavour: 'abstract' as const,
        monotonic: () => now,
        sleep: async (ms: number) => {
          sleeps.push(ms);
          now += ms;
        },
        onWaiting: (holder: unknown) => told.push(holder),
      },
    };
  }

  it('--max-wait 0: busy at once, without waiting or saying it waits', async () => {
    const journal = path.join(tempDir(), 'j.ndjson');
    const held = (await tryLockJournal(journal, { source: 'rows.csv' }, 'abstract')) as { held: { release(): Promise<void> } };
    const { wait, sleeps, told } = fakeWait(0);
    expect(await lockJournal(journal, {}, wait)).toEqual({ busy: { pid: process.pid, source: 'rows.csv' } });
    expect(sleeps).toEqual([]);
    expect(told).toEqual([]);
    await held.held.release();
  });

  it('a held journal is waited for up to --max-wait, said once, then busy', async () => {
    const journal = path.join(tempDir(), 'j.ndjson');
    const held = (await tryLockJournal(journal, { source: 'rows.csv' }, 'abstract')) as { held: { release(): Promise<void> } };
    const { wait, sleeps, told } = fakeWait(1_000);
    expect(await lockJournal(journal, {}, wait)).toHaveProperty('busy');
    expect(sleeps.reduce((a, b) => a + b, 0)).toBe(1_000);
    expect(told).toEqual([{ pid: process.pid, source: 'rows.csv' }]);
    await held.held.release();
  });

  it('a journal let go while waiting is taken', async () => {
    const journal = path.join(tempDir(), 'j.ndjson');
    const held = (await tryLockJournal(journal, { source: 'rows.csv' }, 'abstract')) as { held: { release(): Promise<void> } };
    const { wait, sleeps } = fakeWait(60_000);
    const waiting = lockJournal(journal, {}, { ...wait, sleep: async (ms) => {
      await wait.sleep(ms);
      if (sleeps.length === 3) await held.held.release();
    } });
    const taken = await waiting;
    expect(taken).toHaveProperty('held');
    expect(sleeps).toHaveLength(3);
    await (taken as { held: { release(): Promise<void> } }).held.release();
  });
});
