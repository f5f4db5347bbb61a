import { PassThrough } from 'node:stream';
import type { TestContext } from 'vitest';
import { type Context, createContext } from '../../src/context';
import type { GlobalOptions } from '../../src/globals';
import { type OutStream, createTerminal } from '../../src/terminal';
import { setupE2e } from './cli';

/** The in-process seam (STYLE.md seam 2): run() functions with a real Context over fake streams, as gh's `iostreams.Test()`. */

/** An output stream that keeps each write (the frames of a countdown); `isTTY`/`columns` make it look like a terminal. */
function recordingStream(options: { isTTY?: boolean; columns?: number }): OutStream & { writes: string[]; text(): string } {
  const writes: string[] = [];
  return { writes, write: (chunk: string) => writes.push(chunk), text: () => writes.join(''), ...options };
}

/** A stdin: a finished pipe holding `input`, or (`tty: true`) a terminal the test types into, its raw-mode calls kept. */
interface FakeStdin extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  rawModes: boolean[];
  write(text: string): unknown;
  end(text?: string): unknown;
}

export function fakeStdin(options: { input?: string; tty?: boolean } = {}): FakeStdin {
  const stream = new PassThrough() as unknown as FakeStdin & PassThrough;
  stream.rawModes = [];
  if (options.tty) {
    stream.isTTY = true;
    stream.setRawMode = (mode: boolean) => {
      stream.rawModes.push(mode);
      return stream;
    };
  } else {
    stream.end(options.input ?? '');
  }
  return stream;
}

interface FakeIoOptions {
  /** stdout is a terminal of this many columns (absent: piped, unless stdoutTTY). */
  stdoutColumns?: number;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  /** 80 when absent. */
  stderrColumns?: number;
  stdinTTY?: boolean;
  stdin?: FakeStdin;
}

export function fakeIo(options: FakeIoOptions = {}) {
  const stdoutTTY = options.stdoutTTY ?? options.stdoutColumns !== undefined;
  return {
    stdout: recordingStream(stdoutTTY ? { isTTY: true, columns: options.stdoutColumns } : {}),
    stderr: recordingStream(options.stderrTTY ? { isTTY: true, columns: options.stderrColumns ?? 80 } : {}),
    stdin: options.stdin ?? fakeStdin({ tty: options.stdinTTY }),
  };
}

/** A terminal (src/terminal.ts) over fake streams; colour on unless `color: false`. */
export function createTestTerminal(
  options: FakeIoOptions & { env?: Record<string, string | undefined>; noInput?: boolean; color?: boolean } = {},
) {
  const io = fakeIo(options);
  return { ...io, terminal: createTerminal(io, { env: options.env ?? {}, noInput: options.noInput, color: options.color ?? true }) };
}

/** The global options as commander gives them with no flags (see commands/root.ts), with `overrides`. */
export function globalsWith(overrides: Partial<GlobalOptions> = {}): GlobalOptions {
  return { output: 'table', timeoutMs: 30_000, retries: 4, maxWaitMs: 60_000, verbose: false, quiet: false, color: true, ...overrides };
}

export interface FakeContextOptions extends FakeIoOptions, Partial<Pick<Context, 'now' | 'monotonic' | 'signal'>> {
  globals?: Partial<GlobalOptions>;
  /** The whole environment the command sees (nothing from the test runner's own). */
  env?: Record<string, string | undefined>;
}

/** A real Context over fake streams and a given env; its cleanup (sockets, the in-process sandbox) runs when the test ends. */
export function fakeContext(t: Pick<TestContext, 'onTestFinished'>, options: FakeContextOptions = {}) {
  const io = fakeIo(options);
  const env = Object.fromEntries(Object.entries(options.env ?? {}).filter(([, value]) => value !== undefined));
  const { now, monotonic, signal = new AbortController().signal } = options;
  const ctx: Context = createContext(globalsWith(options.globals), { io, env, signal, now, monotonic });
  t.onTestFinished(() => ctx.cleanup());
  return { ctx, io };
}

/** setupE2e's scripted server, config folder and key, and fake Contexts bound to them. */
export async function servedContext(t: Pick<TestContext, 'onTestFinished'>) {
  const { server, key, configDir } = await setupE2e(t);
  const run = (options: FakeContextOptions = {}) =>
    fakeContext(t, {
      ...options,
      env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key, ...options.env },
      globals: { baseUrl: server.baseUrl, ...options.globals },
    });
  return { server, key, run };
}

/** Without `env`, a config folder that does not exist: nothing of this machine's is read. */
const NO_CONFIG = { PETCTL_CONFIG_DIR: '/nonexistent/petctl-test' };

/** The whole of main() in this process (loaded on first use), over fake streams: its exit code and what it printed. */
export async function runMain(argv: string[], env: Record<string, string> = NO_CONFIG, ioOptions: FakeIoOptions = {}) {
  const { main } = await import('../../src/main');
  const io = fakeIo(ioOptions);
  const code = await main(argv, { io, env, signal: new AbortController().signal });
  return { code, stdout: io.stdout.text(), stderr: io.stderr.text() };
}
