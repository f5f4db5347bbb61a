import { once } from 'node:events';
import { startSandbox } from '../app/sandbox-start';
import { isLoopbackHost } from '../config/url-check';
import type { Context } from '../context';
import { InterruptedError } from '../errors';
import { renderTable } from '../output/table';
import type { Column } from '../output/formats';
import { renderOptions } from '../output/records';
import { formatLocalTime } from '../output/time';
import { safeLines } from '../sanitize';
import type { SandboxKey } from '../sandbox/keys';
import type { EnterpriseQuota } from './parsers';

/** `enterpriseQuota`: agreed per customer in the real service. */
export interface SandboxOptions {
  host: string;
  port: number;
  data?: string;
  maxAnimals?: number;
  minuteMs?: number;
  enterpriseQuota?: EnterpriseQuota;
}

const KEY_COLUMNS: Column<SandboxKey>[] = [
  { header: 'KEY', value: (key) => key.key },
  { header: 'PLAN', value: (key) => key.plan },
  { header: 'PER MINUTE', value: (key) => String(key.perMinute) },
  { header: 'PER DAY', value: (key) => String(key.perDay) },
];

export async function sandboxRun(options: SandboxOptions, ctx: Context): Promise<void> {
  // The request log, made safe like every line on stderr, is written once per turn of the event loop: under load one write, not thousands.
  let pending = '';
  const flush = (): void => {
    const text = pending;
    pending = '';
    if (text !== '') ctx.io.stderr.write(safeLines(text));
  };
  const { data, enterpriseQuota, ...service } = options;
  const sandbox = await startSandbox({
    ...service,
    dataFile: data,
    enterprisePerMinute: enterpriseQuota?.perMinute,
    enterprisePerDay: enterpriseQuota?.perDay,
    // Each request line starts with the local time it ended, e.g. `14:32:05 GET /v1/pets 200 free 3ms`.
    log: (line) => {
      if (pending === '') setImmediate(flush);
      const now = ctx.now();
      pending += `${formatLocalTime(now, now)} ${line}\n`;
    },
  });
  ctx.onCleanup(async () => {
    await sandbox.close();
    flush();
  });

  // stdout carries what a script needs: the base URL first, then the keys.
  ctx.io.stdout.write(`${sandbox.baseUrl}\n`);
  ctx.io.stdout.write(renderTable(KEY_COLUMNS, sandbox.keys, { level: renderOptions(ctx).level }));
  ctx.notice(`Pet Adoption Service sandbox listening on ${sandbox.baseUrl} (${data ? `data in ${data}` : 'data in memory'}); Ctrl-C stops it.`);
  if (!isLoopbackHost(options.host)) ctx.warn(`bound to ${options.host}: the sandbox keys are public, anyone who can reach this address can use them`);

  if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
  await sandbox.close();
  flush();
  throw new InterruptedError();
}
