import { parseInt64, petStatusOf } from '../../schemas/constants';
import type { NewPet } from '../../schemas/pet';
import { csvFields } from './csv-records';
import { type SentField, columnKey, headerField, spellings } from './columns';
import { type InputRow, InvalidInputError, type ReadOptions, refuseUndecodable } from './row';
import { ignoredOnce, validateNewPet, withRowId } from './row';

/** CSV (RFC 4180) with a header row: the rows of csv-records.ts's records. */
export async function* csvRows(text: AsyncIterable<string>, options: ReadOptions): AsyncGenerator<InputRow> {
  let header: CsvHeader | undefined;
  let row = 0;
  for await (const record of csvFields(text, options.delimiter)) {
    if (record.undecodable) throw refuseUndecodable(record.undecodable, record.line, header === undefined ? undefined : row + 1);
    // A row of empty fields is what a spreadsheet writes for an empty row (`,,,`): a blank line.
    if (record.fields?.every((field) => field.trim() === '')) continue;
    if (header === undefined) {
      if (record.reason) throw new InvalidInputError(`line ${record.line}: the CSV header cannot be read: ${record.reason}`);
      header = csvHeader(record.fields!, record.line, options);
      continue;
    }
    row += 1;
    const { line, fields, reason } = record;
    if (reason) {
      yield { row, line, reason };
    } else if (fields!.length !== header.columns.length) {
      yield { row, line, reason: `expected ${header.columns.length} fields (${header.names.join(',')}), found ${fields!.length}` };
    } else {
      const pet = validateNewPet(csvValue(header.columns, fields!));
      const { idIndex } = header;
      yield { row, line, ...(idIndex === undefined ? pet : withRowId(pet, cellText(fields![idIndex]!), header.names[idIndex]!.trim())) };
    }
  }
  if (header === undefined) throw new InvalidInputError('the input is empty: no CSV header');
}

interface CsvHeader {
  names: string[];
  /** The NewPet field each column fills; undefined for the id column and ignored columns. */
  columns: Array<keyof NewPet | undefined>;
  idIndex?: number;
}

function csvHeader(names: string[], line: number, options: ReadOptions): CsvHeader {
  const listed = names.map((name) => name.trim()).join(',');
  const mappings = options.columns ?? [];
  for (const { field, header } of mappings) {
    const found = names.filter((name) => columnKey(name) === columnKey(header)).length;
    if (found === 0) throw new InvalidInputError(`line ${line}: the CSV header has no column ${JSON.stringify(header)} (--column ${field}=${header}); its columns: ${listed}`);
    if (found > 1) throw new InvalidInputError(`line ${line}: the column ${JSON.stringify(header)} (--column ${field}=${header}) appears twice in the CSV header`);
  }
  const fieldOf = (name: string) => headerField(name, mappings);
  const columns: Array<keyof NewPet | undefined> = [];
  const ignore = ignoredOnce(options);
  const idKey = options.idColumn === undefined ? undefined : columnKey(options.idColumn);
  let idIndex: number | undefined;
  names.forEach((name, index) => {
    const column = fieldOf(name);
    if (column !== undefined && columns.includes(column)) {
      const both = names.filter((other) => fieldOf(other) === column).map((other) => JSON.stringify(other.trim()));
      throw new InvalidInputError(`line ${line}: column ${column} appears twice in the CSV header (${both.join(', ')}); choose one with --column ${column}="<header>"`);
    }
    if (column === undefined && idKey !== undefined && columnKey(name) === idKey) {
      if (idIndex !== undefined) throw new InvalidInputError(`line ${line}: the --id-column ${JSON.stringify(options.idColumn)} appears twice in the CSV header`);
      idIndex = index;
    } else if (column === undefined) ignore(name.trim());
    columns.push(column);
  });
  const missing = (['name', 'categoryId'] as const).filter((column) => !columns.includes(column));
  if (missing.length > 0) throw new InvalidInputError(`line ${line}: ${lacking(missing, names.length)}; its columns: ${listed}`);
  if (idKey !== undefined && idIndex === undefined) {
    throw new InvalidInputError(`line ${line}: the CSV header has no column ${JSON.stringify(options.idColumn)} (--id-column); its columns: ${listed}`);
  }
  return { names, columns, idIndex };
}

/** What a header lacks, and the names it would have taken for each: `accepted for categoryId: categoryId, category_id, …`. */
function lacking(missing: readonly SentField[], columnCount: number): string {
  // One column only: its names are likely separated by another character.
  const other = columnCount === 1 ? '; if its columns are separated by another character, give it with --delimiter' : '';
  const accepted = missing.map((field) => `for ${field}: ${spellings(field).join(', ')}`).join('; ');
  const flags = missing.map((field) => `--column ${field}="<header>"`).join(' ');
  return `the CSV header lacks ${missing.join(' and ')}; expected name,categoryId,status${other}; accepted ${accepted} (case, spaces, _ and - do not matter), or any other header with ${flags}`;
}

/** A cell as text: the `'` that `-o csv` writes before a would-be formula is dropped again (`'Tis` stays). */
const FORMULA_GUARD = /^'[=+\-@\t\r]/;
const cellText = (cell: string) => (FORMULA_GUARD.test(cell) ? cell.slice(1) : cell);

/** A CSV row as a NewPet candidate: categoryId as an exact int64 when it is one, a status in any case, an empty one as none. */
function csvValue(columns: Array<keyof NewPet | undefined>, fields: string[]): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  columns.forEach((column, index) => {
    if (column === undefined) return;
    const cell = cellText(fields[index]!);
    if (column === 'name') value.name = cell;
    else if (column === 'categoryId') {
      const trimmed = cell.trim();
      // A whole number beyond int64 stays a number, so its message names the range.
      if (trimmed !== '') value.categoryId = parseInt64(trimmed) ?? (/^-?[1-9]\d*$/.test(trimmed) ? BigInt(trimmed) : trimmed);
    } else if (cell.trim() !== '') value.status = petStatusOf(cell) ?? cell.trim();
  });
  return value;
}
