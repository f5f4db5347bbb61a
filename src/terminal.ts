import { safeLine } from './sanitize';

/** What petctl knows of the terminal, as gh's iostreams: every other module asks here (tests: test/helpers/terminal.ts). */

export interface OutStream {
  write(chunk: string): unknown;
  /** Node's Writable: a write the system refused (a full disk under `> file`); stdio streams forget it a tick later,
   * and say it as an 'error' event. */
  errored?: Error | null;
  on?(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

export interface InStream extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export interface IO {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
}

/** The first write stdout refused but EPIPE, as the stream says it: at once (`errored`), or a tick later (its event). */
export function watchOutput(stdout: OutStream): () => Error | undefined {
  const refusal = (error: Error | null | undefined): Error | undefined =>
    error && (error as NodeJS.ErrnoException).code !== 'EPIPE' ? error : undefined;
  let heard: Error | undefined;
  stdout.on?.('error', (error) => void (heard ??= refusal(error)));
  return () => heard ?? refusal(stdout.errored);
}

/** chalk's: 0 none, 1 16 colours, 2 256, 3 truecolor. */
export type ColorLevel = 0 | 1 | 2 | 3;

export type Terminal = ReturnType<typeof createTerminal>;
export type StatusLine = Terminal['status'];

const ERASE_LINE = '\r\x1b[K';

export function createTerminal(io: IO, settings: { env: Readonly<Record<string, string | undefined>>; noInput?: boolean; color: boolean }) {
  const stdoutIsTerminal = io.stdout.isTTY === true;
  const stderrIsTerminal = io.stderr.isTTY === true;
  const mayPrompt = !settings.noInput && ['', '0', 'false'].includes(settings.env.PETCTL_NO_INPUT?.toLowerCase() ?? '');
  return {
    stdoutIsTerminal,
    stderrIsTerminal,
    // Asked only when needed: the first look at stdin opens it (a stream, and for a file node:fs/promises).
    get stdinIsTerminal() {
      return io.stdin.isTTY === true;
    },
    /** stdout and stderr are both a terminal: a person reads the data, and a hint on stderr is seen. */
    personWatching: () => stdoutIsTerminal && stderrIsTerminal,
    /** stdin and stderr are terminals, and not --no-input or PETCTL_NO_INPUT. */
    canPrompt: () => mayPrompt && io.stdin.isTTY === true && stderrIsTerminal,
    colorLevel: () => colorLevel({ isTTY: stdoutIsTerminal, env: settings.env, noColorFlag: !settings.color }),
    stdoutWidth: () => (stdoutIsTerminal ? positive(io.stdout.columns) : undefined),
    stdoutRows: () => (stdoutIsTerminal ? positive(io.stdout.rows) : undefined),
    status: statusLine(io.stderr, stderrIsTerminal),
  };
}

function positive(count: number | undefined): number | undefined {
  return count !== undefined && Number.isInteger(count) && count > 0 ? count : undefined;
}

/** One line on stderr redrawn in place when it is a terminal, cut to the width: a wrapped one could not be. */
function statusLine(stderr: OutStream, live: boolean) {
  let shown: string | undefined;
  const status = {
    live,
    width: () => (live ? positive(stderr.columns) : undefined),
    show(text: string): void {
      if (!live) return;
      shown = text;
      // The terminal's last column would wrap the cursor on some terminals: one column short of it.
      const columns = positive(stderr.columns) ?? 0;
      const line = safeLine(text);
      stderr.write(`${ERASE_LINE}${columns > 10 ? line.slice(0, columns - 1) : line}`);
    },
    clear(): void {
      if (shown !== undefined) stderr.write(ERASE_LINE);
      shown = undefined;
    },
    print(text: string): void {
      const again = shown;
      status.clear();
      stderr.write(`${safeLine(text)}\n`);
      if (again !== undefined) status.show(again);
    },
  };
  return status;
}

export type ColorInputs = { isTTY: boolean; env: Readonly<Record<string, string | undefined>>; noColorFlag: boolean };

/** The rules are docs/output.md's: piped data has no escape codes even with FORCE_COLOR; an empty NO_COLOR is unset
 * (no-color.org); FORCE_COLOR follows supports-color, an unrecognised value ignored. */
export function colorLevel({ isTTY, env, noColorFlag }: ColorInputs): ColorLevel {
  if (!isTTY || noColorFlag || (env.NO_COLOR !== undefined && env.NO_COLOR !== '')) return 0;
  const forced = env.FORCE_COLOR?.trim().toLowerCase();
  if (forced === 'false') return 0;
  if (forced === 'true') return 1;
  if (forced !== undefined && /^\d+$/.test(forced)) return Math.min(Number(forced), 3) as ColorLevel;
  const term = env.TERM ?? '';
  if (term === 'dumb') return 0;
  const colorTerm = (env.COLORTERM ?? '').toLowerCase();
  if (colorTerm === 'truecolor' || colorTerm === '24bit') return 3;
  if (term.includes('256')) return 2;
  return 1;
}
