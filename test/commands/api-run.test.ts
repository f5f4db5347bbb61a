import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { requestIo } from '../../src/commands/api';
import { apiPaginateRun } from '../../src/commands/api-paginate';
import type { Context } from '../../src/context';
import { UsageError } from '../../src/errors';
import { tempDir } from '../helpers/temp-dir';
import { servedContext } from '../helpers/terminal';

/** `petctl api --paginate`'s run (seam 2), for what needs a terminal: the escapes, and the status line while --query waits. */

const options = { path: '/orders', rawFields: [], typedFields: [], headers: [], include: false };
const linked = (body: string, next?: string) => ({ status: 200, body, headers: (next === undefined ? {} : { Link: `<${next}>; rel="next"` }) as Record<string, string> });

it.concurrent('petctl api --paginate on a terminal: the one array pretty, with control and bidi characters of the items as escapes; with --query, the status line counts pages and items while stdout waits, and is cleared at the end', async (t) => {
  const { server, run } = await servedContext(t);
  server.reply(linked('[{"note":"red\u009b31m"}]', '/v1/orders?page=2'), linked('[{"note":"\u202eevil"}]'));
  server.reply(linked('[1,2]', '/v1/orders?page=2'), linked('[3]'));
  const { ctx, io } = run({ stdoutColumns: 80 });
  await apiPaginateRun(options, ctx);
  expect(io.stdout.text()).toBe('[\n  {\n    "note": "red\\u009b31m"\n  },\n  {\n    "note": "\\u202eevil"\n  }\n]\n');
  const queried = run({ stdoutColumns: 80, stderrTTY: true, globals: { query: 'length(@)' } });
  await apiPaginateRun(options, queried.ctx);
  expect(queried.io.stdout.text()).toBe('3\n');
  expect(queried.io.stderr.text()).toBe('\r\x1b[Kpetctl: page 1, 2 items so far\r\x1b[Kpetctl: page 2, 3 items so far\r\x1b[K');
});

describe('what petctl api reads for a request is bounded', () => {
  const SMALL = { bytes: 1000, words: '1000 bytes' };
  const io = (stdin: NodeJS.ReadableStream) => requestIo({ signal: new AbortController().signal, io: { stdin } } as unknown as Context, SMALL);

  it('a file or standard input over the bound is a usage error, read no further; /dev/zero ends too', async () => {
    const file = path.join(tempDir(), 'big.json');
    fs.writeFileSync(file, 'x'.repeat(1001));
    const reads = io(Readable.from([Buffer.alloc(600), Buffer.alloc(600)]));
    const over = (what: string) => new UsageError(`${what} is larger than 1000 bytes, the most petctl api reads for a request; nothing was sent`);
    await expect(reads.readFile(file)).rejects.toThrow(over(file));
    await expect(reads.readStdin()).rejects.toThrow(over('standard input'));
    await expect(reads.readFile('/dev/zero')).rejects.toThrow(over('/dev/zero'));
    fs.writeFileSync(file, 'x'.repeat(1000));
    await expect(io(Readable.from([Buffer.from('{}')])).readFile(file)).resolves.toHaveLength(1000);
    await expect(io(Readable.from([Buffer.from('{}')])).readStdin()).resolves.toEqual(Buffer.from('{}'));
  });
});
