import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { readStdin } from '../../src/stdin';

it('readStdin: reads every chunk, strings and buffers, byte for byte, to the end; an empty one is empty', async () => {
  const stdin = new PassThrough();
  const read = readStdin(stdin);
  stdin.write('ab');
  stdin.write(Buffer.from([0xc3, 0xa9]));
  stdin.end('\n');
  expect((await read).toString('utf8')).toBe('abé\n');
  const empty = new PassThrough();
  empty.end();
  expect((await readStdin(empty)).length).toBe(0);
});
