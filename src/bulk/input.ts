import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { InStream } from '../terminal';
import { chunksUntilAborted, stdinChunks } from '../stdin';
import { RejectedError, UsageError, describeFsError } from '../errors';

/**
 * The bytes of an import, read twice: to validate every row, then to send. Standard input, and a pipe given as the
 * file, are copied by the first pass to a private temporary file, nameless once open so that nothing is left however
 * petctl ends.
 */
interface BulkInput {
  /** A chunk is valid only until the next is asked for: its buffer is reused. */
  firstPass(): AsyncIterable<Buffer>;
  secondPass(): AsyncIterable<Buffer>;
  close(): Promise<void>;
}

const CHUNK_BYTES = 32 * 1024;
/** The most of standard input kept to read twice: far beyond a day's rate limit, well short of filling a temporary directory. */
const STDIN_SPOOL_BYTES = 1024 ** 3;

function stdinSpoolLimit(env: Readonly<NodeJS.ProcessEnv>): number {
  const given = env.PETCTL_STDIN_MAX_BYTES;
  if (given === undefined || given === '') return STDIN_SPOOL_BYTES;
  if (!/^\d+$/.test(given) || !Number.isSafeInteger(Number(given))) throw new UsageError(`PETCTL_STDIN_MAX_BYTES must be a whole number of bytes, not ${JSON.stringify(given)}`);
  return Number(given);
}

/** Exit 6. */
class InputTooLargeError extends RejectedError {
  constructor(what: string, limit: number) {
    const size = limit > 0 && limit % 1024 ** 3 === 0 ? `${limit / 1024 ** 3} GiB` : limit > 0 && limit % 1024 ** 2 === 0 ? `${limit / 1024 ** 2} MiB` : `${limit} bytes`;
    super(`${what} is larger than ${size}, the most petctl keeps to read it twice; nothing was sent`, {
      code: 'input_too_large',
      hint: 'save it to a file and give its path with --file (or raise PETCTL_STDIN_MAX_BYTES)',
    });
  }
}

export async function openInput(file: string, stdin: InStream, signal: AbortSignal, env: Readonly<NodeJS.ProcessEnv>): Promise<BulkInput> {
  if (file === '-') return spooled('standard input', () => stdinChunks(stdin), signal, stdinSpoolLimit(env));

  const stat = await fs.promises.stat(file).catch((error: unknown) => {
    throw unreadable(file, error);
  });
  if (stat.isDirectory()) throw new UsageError(`cannot read --file ${file}: it is a directory`);
  // A pipe (`--file <(jq …)`, a FIFO, /dev/stdin) gives its bytes once: kept as standard input is.
  if (stat.isFIFO()) return spooled(`the pipe ${file}`, () => readBytes(file), signal, stdinSpoolLimit(env));
  const unchanged = async () => {
    const now = await fs.promises.stat(file);
    if (now.size !== stat.size || now.mtimeMs !== stat.mtimeMs) {
      throw new UsageError(`${file} changed while it was being imported; nothing more was sent`, 'rerun the same command to resume');
    }
  };
  return {
    firstPass: () => chunksUntilAborted(readBytes(file), signal),
    async *secondPass() {
      await unchanged();
      yield* chunksUntilAborted(readBytes(file), signal);
    },
    close: async () => {},
  };
}

/**
 * A file's bytes in one reused buffer: fresh chunks would pile up as external memory (docs/performance.md). A file
 * is read from where its handle stands (a pipe cannot be read at a position); the `spool` from its start.
 */
async function* readBytes(file: string, spool?: fs.promises.FileHandle): AsyncGenerator<Buffer> {
  const handle = spool ?? (await fs.promises.open(file, 'r').catch((error: unknown) => {
    throw unreadable(file, error);
  }));
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  try {
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, spool ? position : null).catch((error) => {
        throw (error as { code?: string }).code === undefined ? error : unreadable(file, error);
      });
      if (bytesRead === 0) return;
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    if (!spool) await handle.close();
  }
}

const unreadable = (file: string, error: unknown) =>
  new UsageError(`cannot read --file ${file}: ${describeFsError(error)}`);

function spooled(what: string, chunks: () => AsyncIterable<Buffer>, signal: AbortSignal, spoolLimit: number): BulkInput {
  let spool: fs.promises.FileHandle | undefined;
  /** While it still has a name. */
  let named: string | undefined;
  const unname = async () => {
    if (named === undefined) return;
    await fs.promises.rm(path.dirname(named), { recursive: true, force: true });
    named = undefined;
  };
  return {
    async *firstPass() {
      const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'petctl-import-'));
      named = path.join(dir, 'input');
      spool = await fs.promises.open(named, 'wx+', 0o600);
      // The open handle keeps the bytes. (Where a system cannot remove an open file, close() removes it.)
      await unname().catch(() => {});
      let size = 0;
      for await (const chunk of chunksUntilAborted(chunks(), signal)) {
        size += chunk.length;
        if (size > spoolLimit) throw new InputTooLargeError(what, spoolLimit);
        await spool.write(chunk);
        yield chunk;
      }
    },
    async *secondPass() {
      if (spool === undefined) throw new Error(`${what} has not been read yet`);
      yield* chunksUntilAborted(readBytes(what, spool), signal);
    },
    async close() {
      await spool?.close();
      await unname();
    },
  };
}
