import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readStdin } from '../../src/stdin';

describe('readStdin', () => {
  it('reads every chunk, strings and buffers, byte for byte, to the end; an empty one is empty', async () => {
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
});
