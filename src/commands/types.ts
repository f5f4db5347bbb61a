import type { Context } from '../context';

/** How an action reaches its run: main.ts builds the Context, and refuses --query without a JSON result. */
export type Invoke = (run: (ctx: Context) => Promise<void>, command?: { jsonResult?: boolean }) => Promise<void>;
