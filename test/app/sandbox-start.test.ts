import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect, it } from 'vitest';
import { sandboxMinuteMs, startSandbox } from '../../src/app/sandbox-start';
import { FailureError, UsageError } from '../../src/errors';
import { tempDir } from '../helpers/cli';
import { thrown } from '../helpers/thrown';

/** startSandbox: what keeps the embedded service from starting, for petctl sandbox and the built-in profile alike. */
it('a data file that is not the sandbox\'s: sandbox_data_file, naming the file, which is left as it was', async () => {
  const data = path.join(tempDir(), 'pets.json');
  fs.writeFileSync(data, '{"pets": [');
  const error = await startSandbox({ host: '127.0.0.1', port: 0, dataFile: data }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(FailureError);
  expect(error).toMatchObject({ exitCode: 1, code: 'sandbox_data_file', message: expect.stringContaining(`sandbox data file ${data} is not a petctl sandbox data file`) });
  expect(fs.readFileSync(data, 'utf8')).toBe('{"pets": [');
});

it('a port in use: port_in_use, with the hint to pick another', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = taken.address() as net.AddressInfo;
    const error = await startSandbox({ host: '127.0.0.1', port }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FailureError);
    expect(error).toMatchObject({ code: 'port_in_use', message: `port ${port} is already in use`, hint: 'pick another with --port, or --port 0 for a free one' });
  } finally {
    taken.close();
  }
});

it.for([
  ['10.99.99.99', 'it is not an address of this machine'],
  ['example.invalid', 'the host name does not resolve'],
])('a --host it cannot listen on (%s): exit 2, naming the host and why', async ([host, why]) => {
  const error = await startSandbox({ host: host!, port: 0 }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(UsageError);
  expect(error).toMatchObject({ exitCode: 2, message: `cannot listen on ${host}: ${why}`, hint: expect.stringContaining('127.0.0.1 (loopback)') });
});

it.each([['1.5'], ['-60'], ['99'], ['1e3'], ['soon']])('PETCTL_SANDBOX_MINUTE_MS=%s is a usage error naming the variable', (given) => {
  const error = thrown(() => sandboxMinuteMs({ PETCTL_SANDBOX_MINUTE_MS: given }), UsageError);
  expect(error.message).toBe(`PETCTL_SANDBOX_MINUTE_MS must be whole milliseconds, 100 or more, not "${given}"`);
});

it('PETCTL_SANDBOX_MINUTE_MS unset or empty leaves the real minute; a whole number of ms is taken', () => {
  expect([sandboxMinuteMs({}), sandboxMinuteMs({ PETCTL_SANDBOX_MINUTE_MS: '' }), sandboxMinuteMs({ PETCTL_SANDBOX_MINUTE_MS: '16000' })]).toEqual([undefined, undefined, 16000]);
});
