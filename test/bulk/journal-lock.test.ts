import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli';
import { type LockFlavour, journalHolder, lockAddress, lockJournal, tryLockJournal } from '../../src/bulk/journal-lock';

// Both lock flavours Linux can run: the abstract socket used here, and macOS's socket file beside the journal (which
// outlives a killed holder). Windows' named pipe behaves as the abstract socket.

type Attempt = Awaited<ReturnType<typeof tryLockJournal>>;

/** The lock `attempt` took, released (it fails the test if none was taken). */
async function release(attempt: Attempt): Promise<void> {
  expect(attempt).toHaveProperty('held');
  await (attempt as Extract<Attempt, { held: unknown }>).held.release();
}

/** A process holding `address` as petctl does, until killed. */
async function foreignHolder(address: string): Promise<ChildProcess> {
  const script = `const net = require('node:net');
    const server = net.createServer((c) => c.end(JSON.stringify({ pid: process.pid, source: 'rows.csv' }) + '\\n'));
    server.listen({ path: JSON.parse(process.env.ADDRESS) }, () => console.log('ready'));`;
  const child = spawn(process.execPath, ['-e', script], { env: { ADDRESS: JSON.stringify(address) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout!, 'data');
  return child;
}

describe.each<LockFlavour>(['abstract', 'file'])('the journal lock (%s)', (flavour) => {
  it('a second import is told who holds the journal (pid, file); once released it is free and taken', async () => {
    const journal = path.join(tempDir(), 'imports', 'journal.ndjson');
    const first = await tryLockJournal(journal, { source: 'rows.csv' }, flavour);
    const busy = { pid: process.pid, source: 'rows.csv' };
    expect(await tryLockJournal(journal, { source: 'other.csv' }, flavour)).toEqual({ busy });
    expect(await journalHolder(journal, flavour)).toEqual(busy);
    await release(first);
    expect(await journalHolder(journal, flavour)).toBeUndefined();
    await release(await tryLockJournal(journal, { source: 'other.csv' }, flavour));
  });

  it('a holder killed with SIGKILL leaves nothing held: the next import takes the lock at once', async () => {
    const journal = path.join(tempDir(), 'journal.ndjson');
    const holder = await foreignHolder(await lockAddress(journal, flavour));
    expect(await tryLockJournal(journal, {}, flavour)).toEqual({ busy: { pid: holder.pid, source: 'rows.csv' } });
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    // A socket file stays behind a killed holder; the lock is taken all the same.
    if (flavour === 'file') expect(fs.existsSync(await lockAddress(journal, flavour))).toBe(true);
    await release(await tryLockJournal(journal, {}, flavour));
  });

  it('two spellings of one journal (relative, through a symlinked folder) are one lock', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'real'));
    fs.symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
    const held = await tryLockJournal(path.join(dir, 'real', 'j.ndjson'), { source: '-' }, flavour);
    const relative = path.relative(process.cwd(), path.join(dir, 'link', 'j.ndjson'));
    expect(await tryLockJournal(relative, {}, flavour)).toEqual({ busy: { pid: process.pid, source: '-' } });
    await release(held);
  });
});

it('a lock that cannot be made (its folder is a file) is journal_unwritable, exit 1, naming the journal', async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'not-a-folder'), '');
  const journal = path.join(dir, 'not-a-folder', 'j.ndjson');
  const error = await tryLockJournal(journal, {}, 'file').catch((caught: unknown) => caught);
  expect(error).toMatchObject({ code: 'journal_unwritable', exitCode: 1 });
  expect((error as Error).message.startsWith(`cannot write the journal ${journal}: its lock could not be made: `)).toBe(true);
});

/** A journal held by this process, and a waiter whose clock moves only when it sleeps (`onSleep` after each). */
async function heldJournal(maxWaitMs: number, onSleep?: (sleeps: number[], held: Attempt) => Promise<void>) {
  const journal = path.join(tempDir(), 'j.ndjson');
  const held = await tryLockJournal(journal, { source: 'rows.csv' }, 'abstract');
  let now = 0;
  const sleeps: number[] = [];
  const told: unknown[] = [];
  const wait = {
    maxWaitMs,
    flavour: 'abstract' as const,
    monotonic: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
      await onSleep?.(sleeps, held);
    },
    onWaiting: (holder: unknown) => told.push(holder),
  };
  return { attempt: await lockJournal(journal, {}, wait), held, sleeps, told };
}

it.each([
  [1_000, [{ pid: process.pid, source: 'rows.csv' }]],
  // --max-wait 0: busy at once, without waiting or saying it waits.
  [0, []],
])('a held journal is waited for up to --max-wait, said once, then busy: %i ms', async (maxWaitMs, saidOnce) => {
  const { attempt, held, sleeps, told } = await heldJournal(maxWaitMs);
  expect(attempt).toEqual({ busy: { pid: process.pid, source: 'rows.csv' } });
  expect([sleeps.reduce((a, b) => a + b, 0), told]).toEqual([maxWaitMs, saidOnce]);
  await release(held);
});

it('a journal let go while waiting is taken', async () => {
  const { attempt, sleeps } = await heldJournal(60_000, async (slept, held) => {
    if (slept.length === 3) await release(held);
  });
  expect(sleeps).toHaveLength(3);
  await release(attempt);
});
