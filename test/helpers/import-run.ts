import { expect } from 'vitest';
import { type CliResult, writeInput } from './cli';
import type { RecordedRequest } from './scripted-server';

/** What the e2e tests of `pets add --file` read back: the file they import, the names posted, the lines printed. */

export const IMPORT_SUMMARY = new RegExp(
  '^created (\\d+), skipped (\\d+), rejected (\\d+), invalid (\\d+), unknown (\\d+)' +
    '(?:, found (\\d+), resent (\\d+), ambiguous (\\d+))? in [\\d.hms]+ \\(\\d+/min\\); journal (.+)$',
  'm',
);

/** The summary line on stderr, counted (found, resent and ambiguous only after --retry-unknown); none fails the test. */
export function importSummary(result: CliResult) {
  const match = IMPORT_SUMMARY.exec(result.stderr);
  expect(match, result.stderr).not.toBeNull();
  const [created, skipped, rejected, invalid, unknown, found, resent, ambiguous] = match!
    .slice(1, 9)
    .map((count) => (count === undefined ? undefined : Number(count)));
  const counts = { created: created!, skipped: skipped!, rejected: rejected!, invalid: invalid!, unknown: unknown! };
  return { ...counts, found, resent, ambiguous, journal: match![9]! };
}

/** The names of the animals POSTed, in the order the server received them. */
export function postedNames(requests: RecordedRequest[]): string[] {
  return requests
    .filter((r) => r.method === 'POST')
    .map((r) => (JSON.parse(r.bodyBytes.toString('utf8')) as { name: string }).name);
}

/** What an import's -o ndjson line holds. */
export interface RowLine {
  row: number;
  line: number;
  ok: boolean;
  error?: { code: string; message: string; status: number };
  pet?: { id: number; name: string };
  [field: string]: unknown;
}

/** Each line of -o ndjson, parsed. */
export function ndjsonRows(stdout: string): RowLine[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RowLine);
}

/** `count` NDJSON rows named `<prefix>1`, `<prefix>2`, … (category 1), written to `dir/name`. */
export function rowsFile(dir: string, name: string, count: number, prefix: string): string {
  const rows = Array.from({ length: count }, (_, i) => `{"name":"${prefix}${i + 1}","categoryId":1}`);
  return writeInput(dir, name, rows.join('\n'));
}
