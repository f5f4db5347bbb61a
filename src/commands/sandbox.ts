import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Context } from '../context';
import { InterruptedError } from '../errors';
import { parseCount, parsePort } from './parsers';
import type { Invoke } from './root';

export interface SandboxOptions {
  host: string;
  port: number;
  data?: string;
  minuteMs?: number;
}

function parseMinuteMs(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 100) {
    throw new InvalidArgumentError('Allowed: whole milliseconds, 100 or more.');
  }
  return ms;
}

export function registerSandbox(program: Command, invoke: Invoke): void {
  program
    .command('sandbox')
    .description('run the embedded Pet Adoption Service in the foreground until Ctrl-C')
    .option('--host <host>', 'address to bind (loopback unless you say otherwise)', '127.0.0.1')
    .addOption(new Option('--port <port>', 'port (0 picks a free one)').argParser(parsePort).default(4010))
    .option('--data <file>', 'keep animals in this file across restarts (default: in memory)')
    .addOption(new Option('--minute-ms <ms>', 'test hook: length of the rate-limit "minute" (the day is 1440 of them)').argParser(parseMinuteMs).hideHelp())
    .addHelpText(
      'after',
      `
Examples:
  $ petctl sandbox --port 4010 --data pets.json
  $ petctl --base-url http://127.0.0.1:4010/v1 pets list
  $ curl -H 'Authorization: Bearer sandbox-free' http://127.0.0.1:4010/v1/pets`,
    )
    .action((options: SandboxOptions) => invoke((ctx) => sandboxRun(options, ctx)));
}

export async function sandboxRun(options: SandboxOptions, ctx: Context): Promise<void> {
  const [{ startSandbox }, { SANDBOX_KEYS }, { isLoopbackHost }] = await Promise.all([
    import('../sandbox/server'),
    import('../sandbox/keys'),
    import('../config/base-url'),
  ]);
  const sandbox = await startSandbox({
    host: options.host,
    port: options.port,
    dataFile: options.data,
    minuteMs: options.minuteMs,
    log: (line) => ctx.io.stderr.write(`${line}\n`),
  });
  ctx.onCleanup(() => sandbox.close());

  // stdout carries what a script needs: the base URL first, then the keys.
  ctx.io.stdout.write(`${sandbox.baseUrl}\n`);
  for (const key of SANDBOX_KEYS) {
    ctx.io.stdout.write(`${key.key}\t${key.plan}\t${key.perMinute}/min\t${key.perDay}/day\n`);
  }
  ctx.notice(`Pet Adoption Service sandbox listening on ${sandbox.baseUrl} (${options.data ? `data in ${options.data}` : 'data in memory'}); Ctrl-C stops it.`);
  if (!isLoopbackHost(options.host)) ctx.warn(`bound to ${options.host}: the sandbox keys are public, anyone who can reach this address can use them`);

  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sandbox.close();
  throw new InterruptedError();
}
