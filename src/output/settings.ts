import { colorLevel } from './color';
import type { RenderOptions } from './records';

/**
 * The parts of a command's context that decide how output looks. Structural,
 * so output/ does not depend on context.ts; a Context satisfies it.
 */
export interface OutputSettingsSource {
  io: { stdout: { isTTY?: boolean; columns?: number } };
  env: Readonly<Record<string, string | undefined>>;
  /** `color` is false when --no-color was given. */
  globals: { color: boolean };
}

/**
 * RenderOptions for what stdout is: a TTY gets a table sized to its width
 * with the colour level the environment allows; anything else gets TSV, no
 * colour, no truncation.
 */
export function renderOptions({ io, env, globals }: OutputSettingsSource): RenderOptions {
  const tty = io.stdout.isTTY === true;
  const level = colorLevel({ isTTY: tty, env, noColorFlag: !globals.color });
  const columns = io.stdout.columns;
  const width = tty && columns !== undefined && Number.isInteger(columns) && columns > 0 ? columns : undefined;
  return width === undefined ? { tty, level } : { tty, level, width };
}
