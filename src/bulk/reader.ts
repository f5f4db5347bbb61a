import { UsageError } from '../errors';
import { decodeText } from './decode';
import { csvRows } from './formats/csv';
import { type InputRow, InvalidInputError, MAX_ROW_CHARS, type ReadOptions, TOO_LONG } from './formats/row';
import { ignoredOnce, refuseUndecodable, rowFromJsonText, textRecords } from './formats/row';

export { type InputRow, InvalidInputError, type ReadOptions } from './formats/row';

/** Rows stream: one is held at a time (in CSV, one batch of records), so a 100 MB file costs a few MB. */

export type InputFormat = 'json' | 'ndjson' | 'csv';

export function formatFromExtension(path: string): InputFormat | undefined {
  const ext = /\.(json|ndjson|jsonl|csv)$/i.exec(path)?.[1]?.toLowerCase();
  return ext === 'jsonl' ? 'ndjson' : (ext as InputFormat | undefined);
}

/** In `format`, or the one the first non-blank character says; InvalidInputError when the whole input is unusable. */
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
  const reading = { ...options, onIgnored: ignoredOnce(options) };
  if (chosen === 'json') yield* jsonArrayRows(all, reading);
  else if (chosen === 'ndjson') yield* ndjsonRows(all, reading);
  else yield* csvRows(all, reading);
}

/** Blank lines before the first row are handed on this many at a time. */
const PIECE_LINES = 1024;

async function* ndjsonRows(text: AsyncIterable<string>, options: ReadOptions): AsyncGenerator<InputRow> {
  let row = 0;
  for await (const { text: lineText, line, tooLong, undecodable } of textRecords(text, false)) {
    if (undecodable) throw refuseUndecodable(undecodable, line, row + 1);
    row += 1;
    yield tooLong ? { row, line, reason: TOO_LONG } : rowFromJsonText(row, line, lineText, options);
  }
}

/** A JSON array, element by element: streaming JSON libraries give neither line numbers nor exact int64s. */
async function* jsonArrayRows(text: AsyncIterable<string>, options: ReadOptions): AsyncGenerator<InputRow> {
  let line = 1;
  let state: 'before' | 'between' | 'element' | 'after' = 'before';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let element = '';
  let elementLine = 0;
  let tooLong = false;
  let row = 0;

  const finishElement = (): InputRow => {
    row += 1;
    const result = tooLong ? { row, line: elementLine, reason: TOO_LONG } : rowFromJsonText(row, elementLine, element, options);
    element = '';
    tooLong = false;
    return result;
  };

  const pieces = (async function* () {
    try {
      yield* text;
    } catch (error) {
      throw refuseUndecodable(error, line, (state as string) === 'before' || (state as string) === 'after' ? undefined : row + 1);
    }
  })();
  for await (const piece of pieces) {
    let chunkStart = 0;
    for (let i = 0; i < piece.length; i++) {
      const ch = piece[i]!;
      if (ch === '\n') line += 1;
      if (state === 'element') {
        if (inString) {
          if (escaped) escaped = false;
          else if (ch === '\\') escaped = true;
          else if (ch === '"') inString = false;
          continue;
        }
        if (ch === '"') inString = true;
        else if (ch === '{' || ch === '[') depth += 1;
        else if ((ch === '}' || ch === ']') && depth > 0) depth -= 1;
        else if (depth === 0 && (ch === ',' || ch === ']')) {
          element += piece.slice(chunkStart, i);
          yield finishElement();
          state = ch === ',' ? 'between' : 'after';
          continue;
        }
        if (element.length + (i - chunkStart) > MAX_ROW_CHARS) {
          tooLong = true;
          element = '';
          chunkStart = i + 1;
        }
        continue;
      }
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') continue;
      if (state === 'before') {
        if (ch !== '[') throw new InvalidInputError(`line ${line}: not a JSON array (found ${JSON.stringify(ch)}); for one object per line use --format ndjson`);
        state = 'between';
      } else if (state === 'between') {
        if (ch === ']' && row === 0) {
          state = 'after';
        } else if (ch === ',' || ch === ']') {
          row += 1;
          yield { row, line, reason: 'missing value (an extra comma?)' };
          if (ch === ']') state = 'after';
        } else {
          state = 'element';
          elementLine = line;
          depth = 0;
          inString = false;
          escaped = false;
          element = '';
          chunkStart = i;
          // Scan this character again as the element's first.
          i -= 1;
        }
      } else {
        throw new InvalidInputError(`line ${line}: unexpected ${JSON.stringify(ch)} after the end of the JSON array`);
      }
    }
    if (state === 'element') element += piece.slice(chunkStart);
  }
  if (state === 'element') {
    const pending = finishElement();
    throw new InvalidInputError(`line ${pending.line} (row ${pending.row}): the input ends inside this row (truncated?); the JSON array is not closed`);
  }
  if ((state as string) !== 'after') throw new InvalidInputError(`line ${line}: the input ends before the JSON array is closed with "]" (truncated?)`);
}
