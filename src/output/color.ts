import { Chalk, type ChalkInstance } from 'chalk';
import type { ColorLevel } from '../terminal';

/** The level itself is the terminal's to decide (src/terminal.ts colorLevel). */
export type { ColorLevel };

/** Re-exported so the rest of output/ names chalk's type without importing chalk. */
export type Painter = ChalkInstance;

/** A chalk instance fixed at `level`; at level 0 every style returns its text unchanged. */
export function makeChalk(level: ColorLevel): Painter {
  return new Chalk({ level });
}
