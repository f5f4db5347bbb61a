import { type InStream, type OutStream, type Terminal, type IO, createTerminal } from '../../src/terminal';

/** A stream that keeps what was written, for a test terminal. */
export interface RecordedStream extends OutStream {
  readonly writes: string[];
  text(): string;
}

export interface TestTerminalOptions {
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  stdinTTY?: boolean;
  /** stdout's columns (a terminal's). */
  width?: number;
  /** stderr's columns (a terminal's; 80 when absent). */
  stderrWidth?: number;
  env?: Record<string, string | undefined>;
  noInput?: boolean;
  color?: boolean;
}

/**
 * A terminal for tests, as gh's `iostreams.Test()`: stdout and stderr record
 * what is written, each a terminal or not as asked; stdin is an empty pipe
 * unless it is declared a terminal.
 */
export function createTestTerminal(options: TestTerminalOptions = {}): { terminal: Terminal; io: IO; stdout: RecordedStream; stderr: RecordedStream } {
  const recorded = (tty: boolean, columns: number | undefined): RecordedStream => {
    const writes: string[] = [];
    return { writes, write: (chunk: string) => writes.push(chunk), text: () => writes.join(''), ...(tty ? { isTTY: true, columns } : {}) };
  };
  const stdout = recorded(options.stdoutTTY === true, options.width);
  const stderr = recorded(options.stderrTTY === true, options.stderrWidth ?? 80);
  const stdin = { isTTY: options.stdinTTY === true } as InStream;
  const io = { stdout, stderr, stdin };
  const terminal = createTerminal(io, { env: options.env ?? {}, noInput: options.noInput, color: options.color ?? true });
  return { terminal, io, stdout, stderr };
}
