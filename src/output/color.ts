import { Chalk, type ChalkInstance } from 'chalk';

/** chalk's levels: 0 none, 1 basic 16 colours, 2 256 colours, 3 truecolor. */
export type ColorLevel = 0 | 1 | 2 | 3;

/** Re-exported so the rest of output/ names chalk's type without importing chalk. */
export type Painter = ChalkInstance;

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

/** A chalk instance fixed at `level`; at level 0 every style returns its text unchanged. */
export function makeChalk(level: ColorLevel): Painter {
  return new Chalk({ level });
}
