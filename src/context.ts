import type { ApiSession } from './app/session';
import type { ProfileStore } from './config/profiles';
import type { ResolvedTarget } from './config/target';
import { type PetctlPaths, resolvePaths } from './config/paths';
import { InterruptedError } from './errors';
import type { OutputFormat } from './output/format';
import { formatWait } from './output/time';
import { type IO, type Terminal, createTerminal } from './terminal';

export type { IO, InStream, OutStream } from './terminal';

/**
 * What commands are given. Commands never touch process.*, conf or the clock
 * directly; tests build a Context with their own streams, env and clock.
 * Everything heavy (the profile store, the HTTP core) is created on first use.
 */

/** The global flags, parsed and checked (see commands/root.ts). */
export interface GlobalOptions {
  profile?: string;
  output: OutputFormat;
  baseUrl?: string;
  timeoutMs: number;
  retries: number;
  maxWaitMs: number;
  verbose: boolean;
  quiet: boolean;
  /** false when --no-color was given. */
  color: boolean;
  /** --query: a JMESPath expression applied to the command's JSON result. */
  query?: string;
  /** --no-input: never prompt, even on a terminal. */
  noInput?: boolean;
}

export interface Context {
  io: IO;
  /** What the streams are (terminals or not), may we prompt, colour, width, the status line. */
  terminal: Terminal;
  env: Readonly<NodeJS.ProcessEnv>;
  globals: GlobalOptions;
  paths: PetctlPaths;
  /** Aborted by Ctrl-C (SIGINT) or SIGTERM. */
  signal: AbortSignal;
  /**
   * Lets a command take the first Ctrl-C itself, to stop gracefully (bulk
   * import stops sending and waits for the requests in flight); the next
   * Ctrl-C, and SIGTERM, abort `signal` as usual. Returns the release function.
   */
  catchInterrupt(handler: () => void): () => void;
  now(): number;
  /** Milliseconds from a clock that never steps (process.hrtime), for measuring and counting down. */
  monotonic(): number;
  random(): number;
  /** Sleeps, rejecting with InterruptedError when the signal aborts. */
  sleep(ms: number): Promise<void>;
  /** A waiting period the user should see: a countdown on a TTY, one line otherwise (none with --quiet). */
  wait(ms: number, why: string): Promise<void>;
  /**
   * The one line `petctl: <why>` for a wait of a second or more (none with
   * --quiet). One wait, one line: requests in flight that wait for the same
   * moment (within a second) share the line printed for the first of them.
   */
  announceWait(ms: number, why: string): void;
  /**
   * One line on stderr that --quiet does not silence (what -v asked for, invalid rows). It and
   * the lines below are the ways onto stderr: each makes outside text safe (sanitize.ts).
   */
  line(message: string): void;
  /** Informational line on stderr; --quiet silences it. */
  notice(message: string): void;
  /** `warning: ...` on stderr; --quiet silences it. */
  warn(message: string): void;
  profiles(): Promise<ProfileStore>;
  /** The service, key and state store in use (-p, --base-url, the environment, the active profile), resolved once. */
  target(): Promise<ResolvedTarget>;
  /** The HTTP core for the profile in use (starting the in-process sandbox when that is the profile). */
  api(): Promise<ApiSession>;
  /** Runs on exit, success or failure: closes sockets and the in-process sandbox. */
  onCleanup(fn: () => Promise<void> | void): void;
  cleanup(): Promise<void>;
}

/** How bin/petctl.js lets a command handle the first SIGINT (see Context.catchInterrupt). */
export interface InterruptHandlers {
  set(handler: (() => void) | undefined): void;
}

export interface ContextDeps {
  io: IO;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  interrupts?: InterruptHandlers;
  now?: () => number;
  monotonic?: () => number;
  random?: () => number;
  /** The terminal's facts; by default read from `io` (tests pass createTestTerminal's). */
  terminal?: Terminal;
}

let httpCoreLoaded = false;

/** Whether this run loaded the HTTP core: bin/petctl.js then keeps a code cache that covers it. */
export function loadedHttpCore(): boolean {
  return httpCoreLoaded;
}

export function createContext(globals: GlobalOptions, deps: ContextDeps): Context {
  const { io, env, signal } = deps;
  const now = deps.now ?? Date.now;
  // process.hrtime rather than performance.now(): the `performance` global loads perf_hooks (its cost: docs/performance.md).
  const monotonic = deps.monotonic ?? (() => Number(process.hrtime.bigint()) / 1e6);
  const terminal = deps.terminal ?? createTerminal(io, { env, noInput: globals.noInput, color: globals.color });
  const paths = resolvePaths(env);
  const cleanups: Array<() => Promise<void> | void> = [];
  let profiles: Promise<ProfileStore> | undefined;
  let target: Promise<ResolvedTarget> | undefined;
  let api: Promise<ApiSession> | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new InterruptedError());
      const onAbort = () => {
        clearTimeout(timer);
        reject(new InterruptedError());
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });

  // --quiet silences everything on stderr but errors; with -o json it leaves the one JSON error line.
  const silent = globals.quiet;
  /** When the waits announced and not yet over end. */
  let announced: number[] = [];

  const ctx: Context = {
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
    now,
    monotonic,
    random: deps.random ?? Math.random,
    sleep,
    announceWait(ms, why) {
      if (silent || ms < 1000) return;
      const at = monotonic();
      const until = at + ms;
      announced = announced.filter((end) => end > at);
      if (announced.some((end) => Math.abs(end - until) < 1000)) return;
      announced.push(until);
      ctx.line(`petctl: ${why}`);
    },
    async wait(ms, why) {
      if (silent || ms < 1000) return sleep(ms);
      const { status } = terminal;
      if (!status.live) {
        ctx.announceWait(ms, why);
        return sleep(ms);
      }
      // On a terminal the line counts down in place and is cleared when the wait ends.
      const until = monotonic() + ms;
      try {
        for (let left = ms; left > 0; left = until - monotonic()) {
          status.show(`petctl: ${why} (${formatWait(left)} left)`);
          // Sleep to the next whole second so the count shown stays exact.
          await sleep(left % 1000 || 1000);
        }
      } finally {
        status.clear();
      }
    },
    line(message) {
      // Above a countdown or a progress line, which is drawn again below it.
      terminal.status.print(message);
    },
    notice(message) {
      if (!silent) ctx.line(message);
    },
    warn(message) {
      if (!silent) ctx.line(`warning: ${message}`);
    },
    profiles() {
      profiles ??= Promise.all([import('./config/profiles'), import('./config/permissions')]).then(([{ openProfileStore }, { checkConfigFiles }]) => {
        checkConfigFiles(paths, (message) => ctx.warn(message));
        return openProfileStore(paths, env);
      });
      return profiles;
    },
    target() {
      target ??= Promise.all([ctx.profiles(), import('./config/target')]).then(async ([store, { resolveTarget }]) => {
        const resolved = resolveTarget(store, { profileFlag: globals.profile, baseUrlFlag: globals.baseUrl, env, sandboxDataFile: paths.sandboxDataFile });
        // The keychain is reached only for a secret kept there.
        if (!resolved.keyRef && !resolved.statePasswordRef) return resolved;
        return (await import('./config/keychain')).readTargetSecrets(resolved, store);
      });
      return target;
    },
    api() {
      api ??= import('./app/session').then(({ openApiSession }) => {
        httpCoreLoaded = true;
        return openApiSession(ctx);
      });
      return api;
    },
    onCleanup(fn) {
      cleanups.push(fn);
    },
    async cleanup() {
      for (const fn of cleanups.splice(0).reverse()) {
        try {
          await fn();
        } catch {
          // Cleanup failures must not mask the command's own result.
        }
      }
    },
  };
  return ctx;
}
