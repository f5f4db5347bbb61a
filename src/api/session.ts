import fs from 'node:fs';
import type { Context } from '../context';
import { isLoopbackHost } from '../config/base-url';
import { type ResolvedTarget, rejectedKeyHint, requireKey } from '../config/target';
import { VERSION } from '../version';
import { HttpClient } from './http-client';
import { type RateLimitGate, openGate } from './limits/gate';
import { openFileStore } from './limits/file-store';
import { limitId } from './limits/store';
import { createDispatcher } from './transport';

/** The HTTP core bound to the profile in use. */
export interface ApiSession {
  http: HttpClient;
  target: ResolvedTarget & { baseUrl: string; apiKey: string };
}

/** `apiKey`: send this key rather than the profile's (auth login checks a key before storing it). */
export async function openApiSession(ctx: Context, overrides: { apiKey?: string } = {}): Promise<ApiSession> {
  const resolved = await ctx.target();
  const apiKey = overrides.apiKey ?? requireKey(resolved);

  let baseUrl = resolved.baseUrl;
  if (baseUrl === undefined) {
    // The built-in sandbox profile: the embedded service, in this process, on an ephemeral loopback port.
    const { startSandbox } = await import('../sandbox/server');
    const minuteMs = Number(ctx.env.PETCTL_SANDBOX_MINUTE_MS) || undefined;
    // Test hook: the embedded sandbox's request log (one line per request, never the key), appended to this file.
    const logFile = ctx.env.PETCTL_SANDBOX_LOG;
    const log = logFile ? (line: string) => fs.appendFileSync(logFile, `${line}\n`) : undefined;
    const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, dataFile: ctx.paths.sandboxDataFile, minuteMs, log });
    ctx.onCleanup(() => sandbox.close());
    baseUrl = sandbox.baseUrl;
  }

  const { hostname } = new URL(baseUrl);
  const dispatcher = await createDispatcher({
    timeoutMs: ctx.globals.timeoutMs,
    env: ctx.env,
    // A proxy cannot reach this machine's loopback, and the in-process sandbox must never leave it.
    direct: isLoopbackHost(hostname),
  });
  // destroy(), not close(): every request of the run has ended, and close() would wait on a stuck one.
  // Not awaited: nothing waits on these sockets any more (the process exits next, which closes them),
  // and waiting for their close events cost ~5 ms at the end of every command.
  ctx.onCleanup(() => {
    dispatcher.destroy().catch(() => {});
  });

  const trace = ctx.globals.verbose ? (line: string) => ctx.line(line) : undefined;
  const probeLeaseMs = ctx.globals.timeoutMs;
  const warn = (message: string) => ctx.warn(message);
  const local = openFileStore(ctx.paths.stateFile, resolved.identity, apiKey, ctx.now, { warn });
  let gate: RateLimitGate = openGate(local, { now: ctx.now, probeLeaseMs });
  if (resolved.stateUrl !== undefined) {
    // Loaded only when a state URL is set: a run without one never evaluates the Redis client.
    const [{ openRedisStore }, { describeStateUrl, stateStoreAddress }] = await Promise.all([import('./limits/redis-store'), import('../config/state-url')]);
    const shared = await openRedisStore({
      address: stateStoreAddress(resolved.stateUrl),
      where: describeStateUrl(resolved.stateUrl),
      password: resolved.statePassword,
      id: await limitId(resolved.identity, apiKey),
      local,
      now: ctx.now,
      warn,
      trace,
    });
    ctx.onCleanup(() => shared.close());
    gate = openGate(shared, { now: ctx.now, probeLeaseMs, mirror: () => shared.mirror() });
  }

  const http = new HttpClient({
    baseUrl,
    apiKey,
    userAgent: `petctl/${VERSION}`,
    timeoutMs: ctx.globals.timeoutMs,
    retries: ctx.globals.retries,
    maxWaitMs: ctx.globals.maxWaitMs,
    dispatcher,
    gate,
    now: ctx.now,
    random: ctx.random,
    wait: (ms, why) => ctx.wait(ms, why),
    signal: ctx.signal,
    authHint: rejectedKeyHint(resolved),
    trace,
  });
  return { http, target: { ...resolved, baseUrl, apiKey } };
}
