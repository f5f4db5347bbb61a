import { safeLine } from './sanitize';

/**
 * The one home for what petctl knows of the terminal, as gh's iostreams is:
 * whether stdout is a terminal (tables, colour, widths), whether a person is
 * watching stderr (countdowns, progress), whether petctl may prompt, the
 * colour level and the width, and the one status line drawn in place on
 * stderr. Every other module asks here; tests build a fake with
 * test/helpers/terminal.ts.
 */

export interface OutStream {
  write(chunk: string): unknown;
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

/** chalk's levels: 0 none, 1 basic 16 colours, 2 256 colours, 3 truecolor. */
export type ColorLevel = 0 | 1 | 2 | 3;

/**
 * One line on stderr redrawn in place (a countdown, an import's progress). On a
 * terminal `show` replaces it and `clear` erases it; elsewhere both do nothing,
 * and `print` is a plain line. The line is cut to the terminal's width: a
 * wrapped line could not be redrawn in place.
 */
export interface StatusLine {
  /** Whether the line is drawn: stderr is a terminal. */
  readonly live: boolean;
  /** The terminal's columns, when it reports them. */
  width(): number | undefined;
  show(text: string): void;
  clear(): void;
  /** A line of its own above the status line, which is drawn again below it. */
  print(text: string): void;
}

export interface Terminal {
  readonly stdoutIsTerminal: boolean;
  /** stderr is a terminal: a person sees waits and progress as they happen. */
  readonly stderrIsTerminal: boolean;
  readonly stdinIsTerminal: boolean;
  /** stdout and stderr are both a terminal: a person reads the data, and a hint on stderr is seen, not piped away. */
  personWatching(): boolean;
  /** stdin and stderr are terminals, and not --no-input or PETCTL_NO_INPUT. */
  canPrompt(): boolean;
  /** The colour level for stdout (see colorLevel). */
  colorLevel(): ColorLevel;
  /** stdout's columns when it is a terminal that reports them. */
  stdoutWidth(): number | undefined;
  /** stdout's rows when it is a terminal that reports them. */
  stdoutRows(): number | undefined;
  readonly status: StatusLine;
}

export interface TerminalSettings {
  env: Readonly<Record<string, string | undefined>>;
  /** --no-input. */
  noInput?: boolean;
  /** false when --no-color was given. */
  color: boolean;
}

const ERASE_LINE = '\r\x1b[K';

export function createTerminal(io: IO, settings: TerminalSettings): Terminal {
  const stdoutIsTerminal = io.stdout.isTTY === true;
  const stderrIsTerminal = io.stderr.isTTY === true;
  // Asked only when needed: the first look at stdin opens it (a stream, and for a file node:fs/promises).
  const stdinIsTerminal = () => io.stdin.isTTY === true;
  return {
    stdoutIsTerminal,
    stderrIsTerminal,
    get stdinIsTerminal() {
      return stdinIsTerminal();
    },
    personWatching: () => stdoutIsTerminal && stderrIsTerminal,
    canPrompt: () => !promptsDisabled(settings) && stdinIsTerminal() && stderrIsTerminal,
    colorLevel: () => colorLevel({ isTTY: stdoutIsTerminal, env: settings.env, noColorFlag: !settings.color }),
    stdoutWidth: () => (stdoutIsTerminal ? widthOf(io.stdout) : undefined),
    stdoutRows: () => (stdoutIsTerminal ? positive(io.stdout.rows) : undefined),
    status: statusLine(io.stderr, stderrIsTerminal),
  };
}

function promptsDisabled({ noInput, env }: TerminalSettings): boolean {
  if (noInput) return true;
  const disabled = env.PETCTL_NO_INPUT;
  return disabled !== undefined && disabled !== '' && disabled !== '0' && disabled.toLowerCase() !== 'false';
}

function widthOf(stream: OutStream): number | undefined {
  return positive(stream.columns);
}

function positive(count: number | undefined): number | undefined {
  return count !== undefined && Number.isInteger(count) && count > 0 ? count : undefined;
}

function statusLine(stderr: OutStream, live: boolean): StatusLine {
  let shown: string | undefined;
  const draw = (text: string) => {
    // The terminal's last column would wrap the cursor on some terminals: one column short of it.
    const columns = widthOf(stderr);
    const line = safeLine(text);
    stderr.write(`${ERASE_LINE}${columns !== undefined && columns > 10 && line.length > columns - 1 ? line.slice(0, columns - 1) : line}`);
  };
  const status: StatusLine = {
    live,
    width: () => (live ? widthOf(stderr) : undefined),
    show(text) {
      if (!live) return;
      shown = text;
      draw(text);
    },
    clear() {
      if (shown !== undefined) stderr.write(ERASE_LINE);
      shown = undefined;
    },
    print(text) {
      const again = shown;
      status.clear();
      stderr.write(`${safeLine(text)}\n`);
      if (again !== undefined) status.show(again);
    },
  };
  return status;
}

export interface ColorInputs {
  /** Whether stdout (where the data goes) is a terminal. */
  isTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  /** `--no-color` was given. */
  noColorFlag: boolean;
}

/**
 * Decides the colour level from values passed in, never from process.* (chalk's
 * default instance reads process.argv and process.env on import; we don't use it).
 *
 * Order matters:
 * 1. stdout not a TTY → 0, even with FORCE_COLOR: piped data must stay free of
 *    escape codes, so `petctl pets list | cut -f2` and `> file` are clean.
 * 2. `--no-color` → 0, then NO_COLOR with any non-empty value → 0 (no-color.org:
 *    an empty NO_COLOR is as good as unset).
 * 3. FORCE_COLOR: `0`/`false` → 0; `1`/`2`/`3` → that level (larger integers
 *    are capped at 3); `true` → 1, following supports-color. An empty or
 *    unrecognised value is ignored and detection continues.
 * 4. TERM=dumb → 0.
 * 5. COLORTERM truecolor/24bit → 3; TERM containing 256 → 2; else 1.
 */
export function colorLevel({ isTTY, env, noColorFlag }: ColorInputs): ColorLevel {
  if (!isTTY) return 0;
  if (noColorFlag) return 0;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;

  const forced = forcedLevel(env.FORCE_COLOR);
  if (forced !== undefined) return forced;

  const term = env.TERM ?? '';
  if (term === 'dumb') return 0;
  const colorTerm = (env.COLORTERM ?? '').toLowerCase();
  if (colorTerm === 'truecolor' || colorTerm === '24bit') return 3;
  if (term.includes('256')) return 2;
  return 1;
}

function forcedLevel(value: string | undefined): ColorLevel | undefined {
  if (value === undefined) return undefined;
  const text = value.trim().toLowerCase();
  if (text === 'false') return 0;
  if (text === 'true') return 1;
  if (!/^\d+$/.test(text)) return undefined;
  return Math.min(Number(text), 3) as ColorLevel;
}
