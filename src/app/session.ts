import fs from 'node:fs';
import { isLoopbackHost } from '../config/url-check';
import type { PetctlPaths } from '../config/paths';
import { type ResolvedTarget, maskKey, rejectedKeyHint, requireKey } from '../config/target';
import { VERSION } from '../version';
import { type FailureTarget, portOf } from '../api/attempt';
import { HttpClient } from '../api/client';
import { type RateLimitGate, openGate } from '../api/limits/gate';
import { openFileStore } from '../api/limits/file-store';
import { type StoreNotice, limitId } from '../api/limits/store';
import { createDispatcher, discardDispatcher } from '../api/transport';
import { steadyClock } from '../api/clock';
import { type CacheAccess, ResponseCache, SAFE_METHODS, responsesDir } from '../api/cache';
import { openRedisStore } from '../api/limits/redis-store';
import { describeStateUrl, stateStoreAddress } from '../config/state-url';
import { SANDBOX_WRITE_LINE, targetTraceLine } from '../output/profile';
import { cacheNotClearedWarning, cacheUnusableWarning, fromCacheLine } from '../output/cache';
import { stateStoreLine } from '../output/state-store';
import { waitWords } from '../output/waits';
import { DEFAULT_PORT as SANDBOX_DEFAULT_PORT } from '../sandbox/defaults';
import { sandboxMinuteMs, startSandbox } from './sandbox-start';
import type { StderrLines } from '../output/stderr';
import type { Terminal } from '../terminal';

/** What a session takes of the Context (context.ts), which opens it: the Context extends it. */
export interface SessionHost extends Omit<StderrLines, 'announceWait'> {
  env: Readonly<NodeJS.ProcessEnv>;
  paths: PetctlPaths;
  globals: { timeoutMs: number; retries: number; maxWaitMs: number; verbose: boolean };
  terminal: Pick<Terminal, 'stderrIsTerminal'>;
  /** Aborted by Ctrl-C (SIGINT) or SIGTERM. */
  signal: AbortSignal;
  now(): number;
  /** A clock that never steps (process.hrtime). */
  monotonic(): number;
  random(): number;
  target(): Promise<ResolvedTarget>;
  /** Run on exit, success or failure (sockets, the in-process sandbox). */
  onCleanup(fn: () => Promise<void> | void): void;
}

/** The HTTP core bound to the resolved target: the built-in sandbox started when that is the target. */
export type ApiSession = Awaited<ReturnType<typeof openApiSession>>;

/** What a refused connection to the base URL means: final on this machine's loopback, and the sandbox's port names the sandbox. */
export function failureTarget(base: URL): FailureTarget {
  if (!isLoopbackHost(base.hostname)) return {};
  return { loopback: { hint: portOf(base) === SANDBOX_DEFAULT_PORT ? 'is the sandbox running? start it with petctl sandbox' : undefined } };
}

/** `apiKey`: send this key rather than the profile's (auth login checks a key before storing it). */
export async function openApiSession(ctx: SessionHost, overrides: { apiKey?: string } = {}) {
  const resolved = await ctx.target();
  const apiKey = overrides.apiKey ?? requireKey(resolved);

  let baseUrl = resolved.baseUrl;
  const builtInSandbox = baseUrl === undefined;
  if (baseUrl === undefined) {
    const minuteMs = sandboxMinuteMs(ctx.env);
    // Test hook: the sandbox's request log (never the key), appended to this file.
    const logFile = ctx.env.PETCTL_SANDBOX_LOG;
    const log = logFile ? (line: string) => fs.appendFileSync(logFile, `${line}\n`) : undefined;
    const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, dataFile: ctx.paths.sandboxDataFile, minuteMs, log });
    ctx.onCleanup(() => sandbox.close());
    baseUrl = sandbox.baseUrl;
  }

  const base = new URL(baseUrl);
  // A proxy cannot reach this machine's loopback, and the in-process sandbox must never leave it.
  const dispatcher = await createDispatcher({ timeoutMs: ctx.globals.timeoutMs, env: ctx.env, direct: isLoopbackHost(base.hostname) });
  // destroy, not close: every request of the run has ended, and close() would wait on a stuck one.
  ctx.onCleanup(() => discardDispatcher(dispatcher));

  const trace = ctx.globals.verbose ? (line: string) => ctx.line(line) : undefined;
  trace?.(targetTraceLine({ ...resolved, baseUrl }, maskKey(apiKey)));
  const probeLeaseMs = ctx.globals.timeoutMs;
  const report = (notice: StoreNotice) => (notice.kind === 'failed' ? trace?.(stateStoreLine(notice)) : ctx.warn(stateStoreLine(notice)));
  const now = steadyClock(ctx.now, ctx.monotonic);
  const local = openFileStore(ctx.paths.stateFile, resolved.identity, apiKey, now, { report });
  let gate: RateLimitGate = openGate(local, { now, probeLeaseMs });
  if (resolved.stateUrl !== undefined) {
    const shared = await openRedisStore({
      address: stateStoreAddress(resolved.stateUrl),
      where: describeStateUrl(resolved.stateUrl),
      password: resolved.statePassword,
      id: await limitId(resolved.identity, apiKey),
      local,
      now,
      report,
      trace,
      signal: ctx.signal,
    });
    ctx.onCleanup(() => shared.close());
    gate = openGate(shared, { now, probeLeaseMs, shared });
  }
  // Slots claimed in a block and not sent go back for other processes and people (run before the store closes).
  ctx.onCleanup(() => gate.release());

  const http = new HttpClient({
    cache: responseCacheAccess(ctx, { baseUrl, identity: resolved.identity, apiKey }),
    baseUrl,
    apiKey,
    userAgent: `petctl/${VERSION}`,
    timeoutMs: ctx.globals.timeoutMs,
    retries: ctx.globals.retries,
    maxWaitMs: ctx.globals.maxWaitMs,
    dispatcher,
    gate,
    now,
    monotonic: ctx.monotonic,
    random: ctx.random,
    wait: (ms, why) => ctx.wait(ms, why),
    announce: (line) => ctx.notice(`petctl: ${line}`),
    words: waitWords,
    ...failureTarget(base),
    signal: ctx.signal,
    authHint: rejectedKeyHint(resolved),
    trace,
  });
  if (builtInSandbox && ctx.terminal.stderrIsTerminal) noteSandboxWrites(http, ctx);
  return { http, target: { ...resolved, baseUrl, apiKey } };
}

/** On a terminal, the first write the built-in sandbox accepts says so once: staff must not take it for live data. */
function noteSandboxWrites(http: HttpClient, ctx: SessionHost): void {
  const send = http.send.bind(http);
  let said = false;
  http.send = async (request) => {
    const response = await send(request);
    if (!said && !SAFE_METHODS.has(request.method.toUpperCase())) {
      said = true;
      ctx.notice(SANDBOX_WRITE_LINE);
    }
    return response;
  };
}

/** The response cache of this target, opened only when a request has --cache or a write has to clear it. */
function responseCacheAccess(ctx: SessionHost, target: { baseUrl: string; identity: string; apiKey: string }): CacheAccess {
  let opened: Promise<ResponseCache> | undefined;
  const access: CacheAccess = {
    open: () => (opened ??= ResponseCache.open({ cacheDir: ctx.paths.cacheDir, now: ctx.now, unusable: (error) => ctx.warn(cacheUnusableWarning(responsesDir(ctx.paths.cacheDir), error)), ...target })),
    served(ageMs, url) {
      if (ctx.globals.verbose) {
        ctx.line(`> GET ${url}`);
        ctx.line(`< ${fromCacheLine(ageMs)}`);
      } else if (ctx.terminal.stderrIsTerminal) ctx.notice(fromCacheLine(ageMs));
    },
    async written() {
      try {
        (await access.open()).forgetTarget();
      } catch (error) {
        ctx.warn(cacheNotClearedWarning(error instanceof Error ? error.message : String(error)));
      }
    },
  };
  return access;
}
