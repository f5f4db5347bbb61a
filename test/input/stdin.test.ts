import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors';
import { readWhole } from '../../src/stdin';

it('readWhole: reads every chunk, strings and buffers, byte for byte, to the end; an empty one is empty', async () => {
  const stdin = new PassThrough();
  const read = readWhole(stdin, new AbortController().signal);
  stdin.write('ab');
  stdin.write(Buffer.from([0xc3, 0xa9]));
  stdin.end('\n');
  expect((await read).toString('utf8')).toBe('abé\n');
  const empty = new PassThrough();
  empty.end();
  expect((await readWhole(empty, new AbortController().signal)).length).toBe(0);
});

it('readWhole: Ctrl-C or SIGTERM while standard input stays open ends the read with InterruptedError', async () => {
  const stdin = new PassThrough();
  const interrupt = new AbortController();
  const read = readWhole(stdin, interrupt.signal);
  stdin.write('{"name":');
  interrupt.abort();
  await expect(read).rejects.toBeInstanceOf(InterruptedError);
});
