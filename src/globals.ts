import type { OutputFormat } from './output/format';

/** The global flags, parsed and checked (see commands/root.ts); `color` false for --no-color. */
export interface GlobalOptions {
  profile?: string;
  output: OutputFormat;
  baseUrl?: string;
  timeoutMs: number;
  retries: number;
  maxWaitMs: number;
  verbose: boolean;
  quiet: boolean;
  color: boolean;
  /** --query's JMESPath expression. */
  query?: string;
  noInput?: boolean;
}
