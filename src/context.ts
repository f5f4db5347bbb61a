import type { ApiSession, SessionHost } from './app/session';
import type { ProfileStore } from './config/profiles';
import type { ResolvedTarget } from './config/target';
import { resolvePaths } from './config/paths';
import { interruptibleSleep, monotonicMs } from './api/clock';
import type { GlobalOptions } from './globals';
import { type StderrLines, stderrLines } from './output/stderr';
import { type IO, type Terminal, createTerminal } from './terminal';

/** What commands are given, as gh's Factory: never process.* or the clock directly, so tests build their own. */
export interface Context extends SessionHost, StderrLines {
  io: IO;
  terminal: Terminal;
  globals: GlobalOptions;
  /** The first Ctrl-C to `handler` (an import stops sending), the next aborting `signal`; returns the release. */
  catchInterrupt(handler: () => void): () => void;
  /** Rejects with InterruptedError when the signal aborts. */
  sleep(ms: number): Promise<void>;
  profiles(): Promise<ProfileStore>;
  api(): Promise<ApiSession>;
  cleanup(): Promise<void>;
}

/** The terminal is read from `io` unless given (tests pass theirs); `interrupts`: how bin/petctl.js lets a command
 * handle the first SIGINT (Context.catchInterrupt). */
export interface ContextDeps extends Partial<Pick<Context, 'now' | 'monotonic' | 'random' | 'terminal'>> {
  io: IO;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  interrupts?: { set(handler: (() => void) | undefined): void };
}

let httpCoreLoaded = false;

/** Whether this run loaded the HTTP core: bin/petctl.js then keeps a code cache that covers it. */
export function loadedHttpCore(): boolean {
  return httpCoreLoaded;
}

export function createContext(globals: GlobalOptions, deps: ContextDeps): Context {
  const { io, env, signal } = deps;
  const monotonic = deps.monotonic ?? monotonicMs;
  const terminal = deps.terminal ?? createTerminal(io, { env, noInput: globals.noInput, color: globals.color });
  const paths = resolvePaths(env);
  const cleanups: Array<() => Promise<void> | void> = [];
  const sleep = interruptibleSleep(signal);
  // Each opened once, on first use; the modules behind them are loaded then (docs/performance.md).
  let profiles: Promise<ProfileStore> | undefined;
  let target: Promise<ResolvedTarget> | undefined;
  let api: Promise<ApiSession> | undefined;

  const ctx: Context = {
    ...stderrLines(terminal, globals.quiet, { monotonic, sleep }),
    io,
    terminal,
    env,
    globals,
    paths,
    signal,
    catchInterrupt(handler) {
      deps.interrupts?.set(handler);
      return () => deps.interrupts?.set(undefined);
    },
    now: deps.now ?? Date.now,
    monotonic,
    random: deps.random ?? Math.random,
    sleep,
    profiles: () => (profiles ??= import('./config/profiles').then(({ openProfileStore }) => openProfileStore(paths, env, ctx.warn))),
    target: () =>
      (target ??= Promise.all([ctx.profiles(), import('./config/target')]).then(([store, { readTargetSecrets, resolveTarget }]) =>
        readTargetSecrets(resolveTarget(store, { profileFlag: globals.profile, baseUrlFlag: globals.baseUrl, env, sandboxDataFile: paths.sandboxDataFile }), store),
      )),
    api: () =>
      (api ??= import('./app/session').then(({ openApiSession }) => {
        httpCoreLoaded = true;
        return openApiSession(ctx);
      })),
    onCleanup: (fn) => void cleanups.push(fn),
    async cleanup() {
      for (const fn of cleanups.splice(0).reverse()) {
        try {
          await fn();
        } catch {
          // Must not mask the command's own result.
        }
      }
    },
  };
  return ctx;
}
