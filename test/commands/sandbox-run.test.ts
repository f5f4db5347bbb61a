import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, describe, expect, it, vi } from 'vitest';
import { type SandboxOptions, sandboxRun } from '../../src/commands/sandbox';
import { InterruptedError } from '../../src/errors';
import { tempDir, WAIT } from '../helpers/cli';
import { fakeContext } from '../helpers/terminal';
import { FREE, call } from '../sandbox/helpers';

/** The sandbox run until `stop()` (Ctrl-C), which must end it with InterruptedError; resolves once the keys are printed. */
async function started(t: TestContext, options: Partial<SandboxOptions> = {}, now?: () => number) {
  const controller = new AbortController();
  const { ctx, io } = fakeContext(t, { signal: controller.signal, ...(now ? { now } : {}) });
  const running = sandboxRun({ host: '127.0.0.1', port: 0, ...options }, ctx).catch((error: unknown) => error);
  await vi.waitFor(() => expect(io.stdout.text().split('\n')).toHaveLength(7), WAIT);
  const stop = async () => {
    controller.abort();
    expect(await running).toBeInstanceOf(InterruptedError);
  };
  return { io, baseUrl: io.stdout.text().split('\n')[0]!, stop };
}

describe.concurrent('sandboxRun', () => {
  it('prints the base URL and the keys (an aligned table) on stdout, logs requests on stderr after the local time, and ends with InterruptedError on Ctrl-C', async (t) => {
    // 14:32:05 local time, whatever the time zone.
    const { io, baseUrl, stop } = await started(t, {}, () => new Date(2026, 10, 25, 14, 32, 5).getTime());
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/v1$/);
    expect(io.stdout.text().split('\n').slice(1)).toEqual([
      'KEY                 PLAN        PER MINUTE  PER DAY',
      'sandbox-free        free        60          1000',
      'sandbox-pro         pro         300         10000',
      'sandbox-business    business    1000        100000',
      'sandbox-enterprise  enterprise  5000        1000000',
      '',
    ]);
    expect(io.stderr.text()).toBe(`Pet Adoption Service sandbox listening on ${baseUrl} (data in memory); Ctrl-C stops it.\n`);

    const reply = await call(baseUrl, '/pets/3', { key: FREE });
    expect(reply.status).toBe(200);
    expect(reply.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    await vi.waitFor(() => expect(io.stderr.text()).toMatch(/\n14:32:05 GET \/v1\/pets\/3 200 free \d+ms\n$/), WAIT);

    await stop();
    await expect(call(baseUrl, '/pets')).rejects.toThrow();
  });

  it('--minute-ms shortens the window; bound beyond loopback, it warns that the keys are public', async (t) => {
    const { io, baseUrl, stop } = await started(t, { host: '0.0.0.0', minuteMs: 1000 });
    const warning = 'warning: bound to 0.0.0.0: the sandbox keys are public';
    await vi.waitFor(() => expect(io.stderr.text()).toContain(warning), WAIT);
    const reply = await call(baseUrl, '/pets?limit=1', { key: FREE });
    // A 1 s window resets within 2 s of now (Reset is whole seconds rounded up); a one-minute window would not.
    expect(Number(reply.headers['x-ratelimit-reset']) * 1000).toBeLessThanOrEqual(Date.now() + 2000);
    await stop();
  });

  it('--data keeps the animals in that file, and names it; --enterprise-quota sets the quotas, and prints them', async (t) => {
    const dataFile = path.join(tempDir(), 'pets.json');
    const { io, baseUrl, stop } = await started(t, { data: dataFile, enterpriseQuota: { perMinute: 2, perDay: 7 } });
    expect(io.stderr.text()).toContain(`(data in ${dataFile})`);
    expect(fs.existsSync(dataFile)).toBe(true);
    expect(io.stdout.text()).toMatch(/^sandbox-enterprise  enterprise  2 +7\n/m);
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await call(baseUrl, '/pets?limit=1', { key: 'sandbox-enterprise' })).status);
    expect(statuses).toEqual([200, 200, 429]);
    await stop();
  });
});
