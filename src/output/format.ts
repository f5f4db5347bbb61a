/** The values `-o/--output` accepts; `--json` is shorthand for `json`. */
export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

