import { type InputRow, InvalidInputError, MAX_ROW_CHARS, type ReadOptions, TOO_LONG, refuseUndecodable } from './row';
import { ignoredOnce, rowFromJsonText } from './row';

/**
 * A JSON array, element by element: streaming JSON libraries give neither line numbers nor exact
 * int64s, so this scanner finds where each element starts and ends and hands its text on.
 */
export async function* jsonArrayRows(text: AsyncIterable<string>, options: ReadOptions): AsyncGenerator<InputRow> {
  const ignore = ignoredOnce(options);
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
    const result = tooLong ? { row, line: elementLine, reason: TOO_LONG } : rowFromJsonText(row, elementLine, element, options, ignore);
    element = '';
    tooLong = false;
    return result;
  };

  // Where the input stops being text, the row in progress (if any) says where.
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
