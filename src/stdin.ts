/** Standard input, the one place that reads it: whole, or chunk by chunk (bulk import spools it to a file). */

/** Standard input as Buffers, whatever encoding the stream was set to. */
export async function* stdinChunks(stdin: NodeJS.ReadableStream): AsyncIterable<Buffer> {
  for await (const chunk of stdin) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
}

export async function readStdin(stdin: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdinChunks(stdin)) chunks.push(chunk);
  return Buffer.concat(chunks);
}
