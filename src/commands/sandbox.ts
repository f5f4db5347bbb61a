import { type Command, Option } from 'commander';
import type { Context } from '../context';
import { InterruptedError } from '../errors';
import type { Column } from '../output/table';
import { DEFAULT_HOST, DEFAULT_MAX_ANIMALS, DEFAULT_PORT } from '../sandbox/defaults';
import { ENTERPRISE_DEFAULT_PER_DAY, ENTERPRISE_DEFAULT_PER_MINUTE, type SandboxKey } from '../sandbox/keys';
import { type EnterpriseQuota, parseEnterpriseQuota, parseMaxAnimals, parseMinuteMs, parsePort } from './parsers';
import type { Invoke } from './types';

export interface SandboxOptions {
  host: string;
  port: number;
  data?: string;
  maxAnimals?: number;
  minuteMs?: number;
  /** The Enterprise plan's quotas (agreed per customer in the real service). */
  enterpriseQuota?: EnterpriseQuota;
}

export function registerSandbox(program: Command, invoke: Invoke): void {
  program
    .command('sandbox')
    .description('run the embedded Pet Adoption Service in the foreground until Ctrl-C')
    .option('--host <host>', 'address to bind (loopback unless you say otherwise)', DEFAULT_HOST)
    .addOption(new Option('--port <port>', 'port (0 picks a free one)').argParser(parsePort).default(DEFAULT_PORT))
    .option('--data <file>', 'keep animals in this file across restarts (default: in memory)')
    .addOption(new Option('--max-animals <n>', 'the most animals kept; a create beyond it gets 507').argParser(parseMaxAnimals).default(DEFAULT_MAX_ANIMALS))
    .addOption(
      new Option('--enterprise-quota <per-minute>/<per-day>', 'the sandbox-enterprise key\'s quotas')
        .argParser(parseEnterpriseQuota)
        .default(
          { perMinute: ENTERPRISE_DEFAULT_PER_MINUTE, perDay: ENTERPRISE_DEFAULT_PER_DAY },
          `${ENTERPRISE_DEFAULT_PER_MINUTE}/${ENTERPRISE_DEFAULT_PER_DAY}`,
        ),
    )
    .addOption(new Option('--minute-ms <ms>', 'test hook: length of the rate-limit "minute" (the day is 1440 of them)').argParser(parseMinuteMs).hideHelp())
    .addHelpText(
      'after',
      `
Examples:
  $ petctl sandbox --port 4010 --data pets.json
  $ petctl sandbox --port 0 --enterprise-quota 1000000/100000000   # load tests: 200s, not 429s
  $ petctl --base-url http://127.0.0.1:4010/v1 pets list
  $ curl -H 'Authorization: Bearer sandbox-free' http://127.0.0.1:4010/v1/pets

Stopped by Ctrl-C or SIGTERM, it ends by that signal (a shell shows 130 or 143).
Exit codes: 2 for a bad flag value; 1 when the port is taken or the data file
is unusable (it is never overwritten).
Reference: petctl help sandbox (keys, limits, paging, timeouts, the data file).`,
    )
    .action((options: SandboxOptions) => invoke((ctx) => sandboxRun(options, ctx)));
}

export async function sandboxRun(options: SandboxOptions, ctx: Context): Promise<void> {
  const [{ startSandbox }, { isLoopbackHost }, { renderTable }, { renderOptions }, { formatLocalTime }, { safeLines }] = await Promise.all([
    import('../app/sandbox-start'),
    import('../config/url-check'),
    import('../output/table'),
    import('../output/settings'),
    import('../output/time'),
    import('../sanitize'),
  ]);
  // A client's request shows in the log: made safe like every line on stderr.
  const batch = batchedLines((text) => ctx.io.stderr.write(safeLines(text)));
  // Each request line starts with the local time it ended, e.g. `14:32:05 GET /v1/pets 200 free 3ms`.
  const log = {
    write: (line: string) => {
      const now = ctx.now();
      batch.write(`${formatLocalTime(now, now)} ${line}`);
    },
    flush: batch.flush,
  };
  const sandbox = await startSandbox({
    host: options.host,
    port: options.port,
    dataFile: options.data,
    maxAnimals: options.maxAnimals,
    minuteMs: options.minuteMs,
    enterprisePerMinute: options.enterpriseQuota?.perMinute,
    enterprisePerDay: options.enterpriseQuota?.perDay,
    log: log.write,
  });
  ctx.onCleanup(async () => {
    await sandbox.close();
    log.flush();
  });

  // stdout carries what a script needs: the base URL first, then the keys.
  ctx.io.stdout.write(`${sandbox.baseUrl}\n`);
  const keyColumns: Column<SandboxKey>[] = [
    { header: 'KEY', value: (key) => key.key },
    { header: 'PLAN', value: (key) => key.plan },
    { header: 'PER MINUTE', value: (key) => String(key.perMinute) },
    { header: 'PER DAY', value: (key) => String(key.perDay) },
  ];
  ctx.io.stdout.write(renderTable(keyColumns, sandbox.keys, { level: renderOptions(ctx).level }));
  ctx.notice(`Pet Adoption Service sandbox listening on ${sandbox.baseUrl} (${options.data ? `data in ${options.data}` : 'data in memory'}); Ctrl-C stops it.`);
  if (!isLoopbackHost(options.host)) ctx.warn(`bound to ${options.host}: the sandbox keys are public, anyone who can reach this address can use them`);

  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sandbox.close();
  log.flush();
  throw new InterruptedError();
}

/** The request log, written once per turn of the event loop rather than once per request: under load that is one write, not thousands. */
function batchedLines(write: (text: string) => void): { write: (line: string) => void; flush: () => void } {
  let pending = '';
  const flush = (): void => {
    if (pending === '') return;
    const text = pending;
    pending = '';
    write(text);
  };
  return {
    write: (line) => {
      if (pending === '') setImmediate(flush);
      pending += `${line}\n`;
    },
    flush,
  };
}
