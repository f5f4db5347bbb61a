import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../digest';
import { PetctlError } from '../errors';
import { makeDirs, withFileLock } from '../locked-file';
import { JournalUnwritableError } from './journal';
import { jsonValue, systemReason } from './journal-format';

/**
 * One import at a time per journal: a listening socket named by the journal's real path, which the system frees
 * however its holder ends (each platform's kind: docs/bulk-import.md, "One import at a time per journal").
 * The holder answers each connection with `{"pid":…,"source":…}`, the source its input's base name or `-`.
 */

export interface JournalHolder {
  pid?: number;
  source?: string;
}

type JournalLock = { release(): Promise<void> };
type LockAttempt = { held: JournalLock } | { busy: JournalHolder };

export type LockFlavour = 'abstract' | 'pipe' | 'file';

const LOCK_POLL_MS = 150;

/** How long a holder may take to say who it is. */
const HOLDER_ANSWER_MS = 2_000;

function platformFlavour(): LockFlavour {
  if (process.platform === 'linux') return 'abstract';
  return process.platform === 'win32' ? 'pipe' : 'file';
}

export async function lockAddress(journal: string, flavour: LockFlavour = platformFlavour()): Promise<string> {
  const real = realPath(journal);
  const name = `petctl-journal-${(await sha256Hex(flavour === 'pipe' ? real.toLowerCase() : real)).slice(0, 32)}`;
  if (flavour === 'abstract') return `\0${name}`;
  if (flavour === 'pipe') return `\\\\.\\pipe\\${name}`;
  const beside = `${real}.lock.sock`;
  // A Unix socket's path is limited to about 100 bytes (104 on macOS): a longer one goes to the temporary folder.
  return Buffer.byteLength(beside) <= 100 ? beside : path.join(os.tmpdir(), `${name}.sock`);
}

/** With the symlinks of the part that exists resolved: two spellings of one file are one lock. */
function realPath(file: string): string {
  const rest: string[] = [];
  for (let at = path.resolve(file); ; at = path.dirname(at)) {
    try {
      return path.join(fs.realpathSync.native(at), ...rest);
    } catch {
      if (path.dirname(at) === at) return path.resolve(file);
      rest.unshift(path.basename(at));
    }
  }
}

/** Takes the lock if it is free, else says who holds it; a lock that cannot be made at all is journal_unwritable. */
export async function tryLockJournal(journal: string, me: JournalHolder, flavour: LockFlavour = platformFlavour()): Promise<LockAttempt> {
  try {
    const address = await lockAddress(journal, flavour);
    if (flavour === 'file') makeDirs(path.dirname(address));
    const attempt = await bindOrAsk(address, me);
    if (attempt) return attempt;
    // Nobody answers: the holder has just let go, or (a socket file) it died and left the file.
    if (flavour === 'file') return await withFileLock(address, () => takeOverDeadFile(address, me));
    return (await bindOrAsk(address, me)) ?? { busy: {} };
  } catch (error) {
    if (error instanceof PetctlError) throw error;
    throw new JournalUnwritableError(journal, `its lock could not be made: ${systemReason(error)}`, error);
  }
}

/** Who holds the lock, without taking it; undefined when it is free. */
export async function journalHolder(journal: string, flavour: LockFlavour = platformFlavour()): Promise<JournalHolder | undefined> {
  return ask(await lockAddress(journal, flavour));
}

/** `sleep` rejects on Ctrl-C; `onWaiting` is told once, as the wait starts. */
interface LockWait {
  maxWaitMs: number;
  monotonic(): number;
  sleep(ms: number): Promise<void>;
  onWaiting(holder: JournalHolder): void;
  flavour?: LockFlavour;
}

/** Takes the lock, waiting up to --max-wait for its holder to let go; `busy` when it did not in time. */
export async function lockJournal(journal: string, me: JournalHolder, wait: LockWait): Promise<LockAttempt> {
  const started = wait.monotonic();
  for (let told = false; ; told = true) {
    const attempt = await tryLockJournal(journal, me, wait.flavour);
    if ('held' in attempt) return attempt;
    const waited = wait.monotonic() - started;
    if (waited >= wait.maxWaitMs) return attempt;
    if (!told) wait.onWaiting(attempt.busy);
    await wait.sleep(Math.min(LOCK_POLL_MS, wait.maxWaitMs - waited));
  }
}

/** Binds `address`, answering who holds it; undefined when another process has it bound. */
function listen(address: string, me: JournalHolder): Promise<JournalLock | undefined> {
  const answer = `${JSON.stringify({ pid: process.pid, source: me.source })}\n`;
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.end(answer);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(undefined) : reject(error)));
    server.listen({ path: address, exclusive: true }, () => {
      server.unref();
      resolve({ release: () => new Promise<void>((done) => server.close(() => done())) });
    });
  });
}

/** Undefined when nothing listens at `address`. */
function ask(address: string): Promise<JournalHolder | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const socket = net.connect({ path: address });
    const timer = setTimeout(() => socket.destroy(), HOLDER_ANSWER_MS);
    timer.unref();
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk.slice(0, 1024)));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // Refused or absent: free. Anything else (a timeout, a reset): held by something that does not say who.
      resolve(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? undefined : {});
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseHolder(text));
    });
  });
}

function parseHolder(text: string): JournalHolder {
  const { pid, source } = (jsonValue(text.split('\n', 1)[0] ?? '') ?? {}) as Record<string, unknown>;
  return { ...(Number.isSafeInteger(pid) ? { pid: pid as number } : {}), ...(typeof source === 'string' ? { source } : {}) };
}

/** Binds `address`, or says who holds it; undefined when another process has it bound and does not answer. */
async function bindOrAsk(address: string, me: JournalHolder): Promise<LockAttempt | undefined> {
  const held = await listen(address, me);
  if (held) return { held };
  const holder = await ask(address);
  return holder && { busy: holder };
}

/** A socket file whose holder died: asked again under the file lock (another import may have taken it), bound anew. */
async function takeOverDeadFile(address: string, me: JournalHolder): Promise<LockAttempt> {
  const holder = await ask(address);
  if (holder) return { busy: holder };
  try {
    fs.unlinkSync(address);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return { busy: {} };
  }
  return (await bindOrAsk(address, me)) ?? { busy: {} };
}
