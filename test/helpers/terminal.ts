import { PassThrough } from 'node:stream';
import type { TestContext } from 'vitest';
import { type Context, createContext } from '../../src/context';
import type { GlobalOptions } from '../../src/globals';
import { type OutStream, type Terminal, createTerminal } from '../../src/terminal';
import { newApiKey } from './cli';
import { startScriptedServer } from './scripted-server';
import { tempDir } from './temp-dir';

/** The in-process seam (STYLE.md seam 2): run() functions with a real Context over fake streams, as gh's `iostreams.Test()`. */

/** An output stream that keeps what was written; `isTTY`/`columns` make it look like a terminal. */
export interface RecordingStream extends OutStream {
  /** Each write separately (e.g. the frames of a countdown). */
  readonly writes: string[];
  /** Everything written so far. */
  text(): string;
}

export function recordingStream(options: { isTTY?: boolean; columns?: number } = {}): RecordingStream {
  const writes: string[] = [];
  return { writes, write: (chunk: string) => writes.push(chunk), text: () => writes.join(''), ...options };
}

/** A stdin: a finished pipe holding `input`, or (`tty: true`) a terminal the test types into with `type()`. */
export interface FakeStdin extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  /** The raw-mode calls made, in order (a terminal only). */
  rawModes: boolean[];
  /** Types characters into a terminal stdin. */
  type(text: string): void;
  /** Ends a terminal stdin (EOF), after `text` if given. */
  end(text?: string): unknown;
}

export function fakeStdin(options: { input?: string; tty?: boolean } = {}): FakeStdin {
  const stream = new PassThrough() as unknown as FakeStdin & PassThrough;
  stream.rawModes = [];
  stream.type = (text) => {
    stream.write(text);
  };
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

export interface FakeIoOptions {
  /** stdout is a terminal of this many columns (absent: piped). */
  stdoutColumns?: number;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  /** stderr's columns (a terminal's; 80 when absent). */
  stderrColumns?: number;
  stdinTTY?: boolean;
  stdin?: FakeStdin;
}

export interface FakeIo {
  stdout: RecordingStream;
  stderr: RecordingStream;
  stdin: FakeStdin;
}

export function fakeIo(options: FakeIoOptions = {}): FakeIo {
  const stdoutTTY = options.stdoutTTY ?? options.stdoutColumns !== undefined;
  return {
    stdout: recordingStream(stdoutTTY ? { isTTY: true, ...(options.stdoutColumns === undefined ? {} : { columns: options.stdoutColumns }) } : {}),
    stderr: recordingStream(options.stderrTTY ? { isTTY: true, columns: options.stderrColumns ?? 80 } : {}),
    stdin: options.stdin ?? fakeStdin({ tty: options.stdinTTY }),
  };
}

/** A terminal (src/terminal.ts) over fake streams; colour on unless `color: false`. */
export function createTestTerminal(
  options: FakeIoOptions & { env?: Record<string, string | undefined>; noInput?: boolean; color?: boolean } = {},
): FakeIo & { terminal: Terminal } {
  const io = fakeIo(options);
  return { ...io, terminal: createTerminal(io, { env: options.env ?? {}, noInput: options.noInput, color: options.color ?? true }) };
}

/** The global options as commander gives them with no flags (see commands/root.ts), with `overrides`. */
export function globalsWith(overrides: Partial<GlobalOptions> = {}): GlobalOptions {
  return { output: 'table', timeoutMs: 30_000, retries: 4, maxWaitMs: 60_000, verbose: false, quiet: false, color: true, ...overrides };
}

export interface FakeContextOptions extends FakeIoOptions {
  globals?: Partial<GlobalOptions>;
  /** The whole environment the command sees (nothing from the test runner's own). */
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  now?: () => number;
  monotonic?: () => number;
}

/** A real Context (src/context.ts) over fake streams and a given env. Its cleanup (sockets, the in-process sandbox) runs when the test finishes. */
export function fakeContext(t: Pick<TestContext, 'onTestFinished'>, options: FakeContextOptions = {}): { ctx: Context; io: FakeIo } {
  const io = fakeIo(options);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(options.env ?? {})) if (value !== undefined) env[name] = value;
  const ctx = createContext(globalsWith(options.globals), {
    io,
    env,
    signal: options.signal ?? new AbortController().signal,
    ...(options.now ? { now: options.now } : {}),
    ...(options.monotonic ? { monotonic: options.monotonic } : {}),
  });
  t.onTestFinished(() => ctx.cleanup());
  return { ctx, io };
}

/** A scripted server for this test, and fake Contexts bound to it, to a config folder of the test's and to one key. */
export async function servedContext(t: Pick<TestContext, 'onTestFinished'>) {
  const server = await startScriptedServer();
  const key = newApiKey();
  const configDir = tempDir();
  t.onTestFinished(() => server.close());
  const run = (options: FakeContextOptions = {}) =>
    fakeContext(t, {
      ...options,
      env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key, ...options.env },
      globals: { baseUrl: server.baseUrl, ...options.globals },
    });
  return { server, key, run };
}

/** The whole of main() in this process (loaded on first use), over fake streams: its exit code and what it printed. */
export async function runMain(argv: string[], env: Record<string, string> = {}, ioOptions: FakeIoOptions = {}) {
  const { main } = await import('../../src/main');
  const io = fakeIo(ioOptions);
  const code = await main(argv, { io, env, signal: new AbortController().signal });
  return { code, stdout: io.stdout.text(), stderr: io.stderr.text() };
}
