import { untilAborted } from './api/clock';
import { InterruptedError } from './errors';

/** Standard input, the one place that reads it: whole (and any stream so), or chunk by chunk (bulk import spools it to a file). */

/** Standard input as Buffers, whatever encoding the stream was set to. */
export async function* stdinChunks(stdin: NodeJS.ReadableStream): AsyncIterable<Buffer> {
  for await (const chunk of stdin) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
}

/** A stream whole (standard input, or a file petctl api sends); Ctrl-C or SIGTERM (`signal`) ends the wait for it with
 * InterruptedError. Past `limit.bytes` (/dev/zero, a file given by mistake) it stops with `limit.error()` rather than
 * fill the memory. */
export async function readWhole(stream: NodeJS.ReadableStream, signal: AbortSignal, limit?: { bytes: number; error: () => Error }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunksUntilAborted(stdinChunks(stream), signal)) {
    size += chunk.length;
    if (limit && size > limit.bytes) throw limit.error();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** `source`, until `signal` aborts: then InterruptedError at once, even while a chunk is awaited. */
export async function* chunksUntilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await untilAborted(iterator.next(), signal, () => new InterruptedError());
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // A read still pending when the signal came ends with the process; awaiting it could hang. (After the
    // last chunk, return() does nothing.)
    if (!signal.aborted) await iterator.return?.();
  }
}
