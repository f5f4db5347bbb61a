import type { Context } from '../context';

/**
 * How a leaf command's action reaches its run function: main.ts builds the Context from the global
 * flags, and refuses --query unless the command has a JSON result it can filter.
 */
export type Invoke = (run: (ctx: Context) => Promise<void>, command?: { jsonResult?: boolean }) => Promise<void>;

export type HelpOutput = { writeOut(text: string): void };
