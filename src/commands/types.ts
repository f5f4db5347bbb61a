import type { Context } from '../context';

/** How a leaf command's action reaches its run function: main.ts builds the Context from the global flags. */
export type Invoke = (run: (ctx: Context) => Promise<void>, command?: CommandTraits) => Promise<void>;

/** What main.ts checks before running a command. */
export interface CommandTraits {
  /** The command has a JSON result that --query can filter. */
  jsonResult?: boolean;
}

export type HelpOutput = { writeOut(text: string): void };
