import { expect } from 'vitest';
import { type InputFormat, type InputRow, InvalidInputError, type ReadOptions, readRows } from '../../src/bulk/reader';

/** `bytes` in chunks of `size`, each copied into one reused buffer as input.ts reads a file (a chunk kept is overwritten). */
export async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  const reused = Buffer.alloc(size);
  for (let i = 0; i < bytes.length; i += size) {
    const length = bytes.copy(reused, 0, i, i + size);
    yield reused.subarray(0, length);
    reused.fill(0x23);
  }
}

/** The rows of `text` fed in chunks of `chunk` bytes, so every split point (inside quotes, CRLF, a UTF-8 sequence) is exercised. */
export async function rows(text: string | Buffer, format?: InputFormat, chunk = 7, options: ReadOptions = {}): Promise<InputRow[]> {
  const out: InputRow[] = [];
  for await (const row of readRows(chunked(Buffer.from(text), chunk), format, undefined, options)) out.push(row);
  return out;
}

/** The refusal of the whole input: invalid_input, exit 6. */
export async function failure(text: string | Buffer, format?: InputFormat, options?: ReadOptions): Promise<InvalidInputError> {
  const error = await rows(text, format, 7, options).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(InvalidInputError);
  expect(error).toMatchObject({ exitCode: 6, code: 'invalid_input' });
  return error as InvalidInputError;
}
