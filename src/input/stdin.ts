/**
 * Reading all of standard input (a pipe or a file): `auth login --with-token`,
 * `api --input -` and `api -F field=@-`. Bulk import streams stdin to a spool
 * file instead (bulk/input.ts): it may be larger than memory.
 */
export async function readStdin(stdin: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}
