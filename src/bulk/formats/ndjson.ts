import { rowFromJsonText, ignoredOnce } from './fields';
import { type InputRow, type ReadOptions, TOO_LONG, refuseUndecodable, textRecords } from './row';

/** NDJSON: one value per line; blank lines are skipped but still counted. */
export async function* ndjsonRows(text: AsyncIterable<string>, options: ReadOptions): AsyncGenerator<InputRow> {
  const ignore = ignoredOnce(options);
  let row = 0;
  for await (const { text: lineText, line, tooLong, undecodable } of textRecords(text, false)) {
    if (undecodable) throw refuseUndecodable(undecodable, line, row + 1);
    row += 1;
    yield tooLong ? { row, line, reason: TOO_LONG } : rowFromJsonText(row, line, lineText, options, ignore);
  }
}
