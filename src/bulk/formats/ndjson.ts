import { rowFromJsonText, ignoredOnce } from './fields';
import { type InputRow, MAX_ROW_CHARS, type ReadOptions, TOO_LONG, refuseUndecodable } from './row';

/** NDJSON: one value per line; blank lines are skipped but still counted. */
export async function* ndjsonRows(text: AsyncIterable<string>, options: ReadOptions): AsyncGenerator<InputRow> {
  const ignore = ignoredOnce(options);
  let line = 0;
  let row = 0;
  for await (const { text: lineText, tooLong, undecodable } of lines(text)) {
    if (undecodable) throw refuseUndecodable(undecodable, line + 1, row + 1);
    line += 1;
    if (!tooLong && lineText.trim() === '') continue;
    row += 1;
    yield tooLong ? { row, line, reason: TOO_LONG } : rowFromJsonText(row, line, lineText, options, ignore);
  }
}

/** Splits text into lines (LF or CRLF), without holding more than one line; a line past the cap is cut and flagged. */
async function* lines(text: AsyncIterable<string>): AsyncGenerator<{ text: string; tooLong: boolean; undecodable?: unknown }> {
  let pending = '';
  let tooLong = false;
  try {
    for await (const piece of text) {
      let start = 0;
      for (let end = piece.indexOf('\n'); end !== -1; end = piece.indexOf('\n', start)) {
        const part = pending + piece.slice(start, end);
        yield { text: part.endsWith('\r') ? part.slice(0, -1) : part, tooLong: tooLong || part.length > MAX_ROW_CHARS };
        pending = '';
        tooLong = false;
        start = end + 1;
      }
      pending += piece.slice(start);
      if (pending.length > MAX_ROW_CHARS) {
        pending = '';
        tooLong = true;
      }
    }
  } catch (error) {
    // The line in progress is where the input stops being text: the reader says so with its row.
    yield { text: '', tooLong: false, undecodable: error };
    return;
  }
  if (pending !== '' || tooLong) yield { text: pending.endsWith('\r') ? pending.slice(0, -1) : pending, tooLong };
}
