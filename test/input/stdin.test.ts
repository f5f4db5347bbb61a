import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors';
import { readStdin } from '../../src/stdin';

it('readStdin: reads every chunk, strings and buffers, byte for byte, to the end; an empty one is empty', async () => {
  const stdin = new PassThrough();
  const read = readStdin(stdin, new AbortController().signal);
  stdin.write('ab');
  stdin.write(Buffer.from([0xc3, 0xa9]));
  stdin.end('\n');
  expect((await read).toString('utf8')).toBe('abé\n');
  const empty = new PassThrough();
  empty.end();
  expect((await readStdin(empty, new AbortController().signal)).length).toBe(0);
});

it('readStdin: Ctrl-C or SIGTERM while standard input stays open ends the read with InterruptedError', async () => {
  const stdin = new PassThrough();
  const interrupt = new AbortController();
  const read = readStdin(stdin, interrupt.signal);
  stdin.write('{"name":');
  interrupt.abort();
  await expect(read).rejects.toBeInstanceOf(InterruptedError);
});
