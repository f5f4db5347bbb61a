import type { Terminal } from '../terminal';
import type { RenderOptions } from './records';

/**
 * The part of a command's context that decides how output looks. Structural,
 * so output/ does not depend on context.ts; a Context satisfies it.
 */
export interface OutputSettingsSource {
  terminal: Pick<Terminal, 'stdoutIsTerminal' | 'colorLevel' | 'stdoutWidth'>;
}

/**
 * RenderOptions for what stdout is: a terminal gets a table sized to its width
 * with the colour level the environment allows; anything else gets TSV, no
 * colour, no truncation.
 */
export function renderOptions({ terminal }: OutputSettingsSource): RenderOptions {
  const tty = terminal.stdoutIsTerminal;
  const level = terminal.colorLevel();
  const width = terminal.stdoutWidth();
  return width === undefined ? { tty, level } : { tty, level, width };
}
