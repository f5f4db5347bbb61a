/** The values `-o/--output` accepts; `--json` is shorthand for `json`. */
export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

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
