import { UsageError } from '../errors';
import { decodeText } from './decode';
import { csvRows } from './formats/csv';
import { jsonArrayRows } from './formats/json-array';
import { type InputRow, InvalidInputError, type ReadOptions, TOO_LONG, refuseUndecodable, textRecords } from './formats/row';
import { ignoredOnce, rowFromJsonText } from './formats/row';

export { type InputRow, InvalidInputError, type ReadOptions } from './formats/row';
export { headerField } from './formats/columns';

/** Rows stream: one is held at a time (in CSV, one batch of records), so a 100 MB file costs a few MB. */

export type InputFormat = 'json' | 'ndjson' | 'csv';

export function formatFromExtension(path: string): InputFormat | undefined {
  const ext = /\.(json|ndjson|jsonl|csv)$/i.exec(path)?.[1]?.toLowerCase();
  return ext === 'jsonl' ? 'ndjson' : (ext as InputFormat | undefined);
}

/** The rows of `chunks`, in `format` or the one the first non-blank character says; InvalidInputError when the input as a whole is unusable. */
export async function* readRows(
  chunks: AsyncIterable<Buffer>,
  format: InputFormat | undefined,
  onFormat?: (chosen: InputFormat) => void,
  options: ReadOptions = {},
): AsyncGenerator<InputRow> {
  const text = decodeText(chunks, options.encoding);
  // Look ahead to the first non-blank character, for detection and to refuse an empty input. The
  // blank text before it is kept as its line breaks only: an endless stream of spaces holds nothing.
  let blankLines = 0;
  let head = '';
  try {
    // Not for-await with break: breaking would close the stream.
    for (let next = await text.next(); !next.done; next = await text.next()) {
      if (/\S/.test(next.value)) {
        head = next.value;
        break;
      }
      blankLines += next.value.split('\n').length - 1;
    }
  } catch (error) {
    throw refuseUndecodable(error, blankLines + 1);
  }
  const firstChar = /\S/.exec(head)?.[0];
  if (firstChar === undefined) throw new InvalidInputError('the input is empty: no rows to import');
  const all = (async function* () {
    for (; blankLines > 0; blankLines -= PIECE_LINES) yield '\n'.repeat(Math.min(blankLines, PIECE_LINES));
    yield head;
    yield* text;
  })();
  const chosen = format ?? (firstChar === '[' ? 'json' : firstChar === '{' ? 'ndjson' : 'csv');
  onFormat?.(chosen);
  if (chosen !== 'csv' && options.columns?.length) {
    throw new UsageError(`--column applies to CSV headers, not ${chosen} input`, 'JSON fields are taken by their exact names: name, categoryId, status');
  }
  if (chosen === 'json') yield* jsonArrayRows(all, options);
  else if (chosen === 'ndjson') yield* ndjsonRows(all, options);
  else yield* csvRows(all, options);
}

/** Blank lines before the first row are handed on this many at a time. */
const PIECE_LINES = 1024;

/** NDJSON: one value per line; blank lines are skipped but still counted. */
async function* ndjsonRows(text: AsyncIterable<string>, options: ReadOptions): AsyncGenerator<InputRow> {
  const ignore = ignoredOnce(options);
  let row = 0;
  for await (const { text: lineText, line, tooLong, undecodable } of textRecords(text, false)) {
    if (undecodable) throw refuseUndecodable(undecodable, line, row + 1);
    row += 1;
    yield tooLong ? { row, line, reason: TOO_LONG } : rowFromJsonText(row, line, lineText, options, ignore);
  }
}
