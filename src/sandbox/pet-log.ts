import { parseJson, stringifyJson } from '../schemas/json';
import { INT64_MAX, INT64_MIN, PET_STATUSES } from '../schemas/constants';
import { STATUS_RULE } from '../schemas/new-pet-rules';
import type { PetStatus } from '../schemas/pet';
import type { StoredPet } from './pet-table';

/**
 * The data file's layout (version 2): an append-only log of adds.
 *
 *   {"format":"petctl-sandbox-pets","version":2}          header line
 *   {"id":1,"name":"Rex","categoryId":1,"status":"available"}
 *   {"id":2,"name":"Bella","categoryId":1,"status":"pending"}
 *   …one animal per line, compact JSON, ascending ids, each line ending in \n
 *
 * An add appends its line(s) and fsyncs: its cost does not grow with the
 * number of animals. The service has no update or delete, so no line is ever
 * superseded and the log needs no compaction.
 *
 * A line without its final \n is an add that was cut short by a crash before
 * it was acknowledged: readers ignore it, and the next writer (under the lock)
 * cuts it off before appending. Any other line that is not a valid animal
 * makes the file corrupt: an error naming the file and the line, never discarded.
 */

export const LOG_FORMAT = 'petctl-sandbox-pets';
export const LOG_VERSION = 2;
/** The header line, as error messages show it. */
export const LOG_HEADER_EXAMPLE = `{"format":"${LOG_FORMAT}","version":${LOG_VERSION}}`;

export interface LogHeader {
  format: typeof LOG_FORMAT;
  version: typeof LOG_VERSION;
  [other: string]: unknown;
}

export interface ParsedLog {
  header: LogHeader;
  pets: StoredPet[];
  /** Bytes up to and including the last complete line. */
  consumed: number;
  /** Lines read so far, the header included (for error messages). */
  lines: number;
}

export class LogFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogFormatError';
  }
}

const NEWLINE = 0x0a;

/** Whether `bytes` starts with the header line of this layout. */
export function isLog(bytes: Buffer): boolean {
  const end = bytes.indexOf(NEWLINE);
  const first = bytes.subarray(0, end === -1 ? bytes.length : end).toString('utf8');
  if (!first.includes(LOG_FORMAT)) return false;
  try {
    const header = JSON.parse(first) as Partial<LogHeader>;
    return header.format === LOG_FORMAT;
  } catch {
    return false;
  }
}

/** Parses a whole log. Throws LogFormatError on a bad header or a bad complete line. */
export function parseLog(bytes: Buffer): ParsedLog {
  const end = bytes.indexOf(NEWLINE);
  if (end === -1) throw new LogFormatError('has no complete header line');
  let header: LogHeader;
  try {
    header = JSON.parse(bytes.subarray(0, end).toString('utf8')) as LogHeader;
  } catch (error) {
    throw new LogFormatError(`has a header line that is not JSON (${(error as Error).message})`);
  }
  if (header.format !== LOG_FORMAT || header.version !== LOG_VERSION) {
    throw new LogFormatError(`has an unknown format or version in its header line (version ${String(header.version)})`);
  }
  const tail = parseLogLines(bytes, end + 1, 1, 0n);
  return { header, pets: tail.pets, consumed: end + 1 + tail.consumed, lines: 1 + tail.lines };
}

/**
 * Parses the complete lines of `bytes` from `offset` (bytes after the last \n
 * are left for later). `lineNumber` is the number of lines before `offset`;
 * ids must keep ascending from `highestId`.
 */
export function parseLogLines(
  bytes: Buffer,
  offset: number,
  lineNumber: number,
  highestId: bigint,
): { pets: StoredPet[]; consumed: number; lines: number } {
  const pets: StoredPet[] = [];
  let start = offset;
  let lines = 0;
  let highest = highestId;
  for (;;) {
    const end = bytes.indexOf(NEWLINE, start);
    if (end === -1) break;
    lines += 1;
    const where = `line ${lineNumber + lines}`;
    const pet = storedPetFromLine(bytes.subarray(start, end).toString('utf8'), where);
    if (pet.id <= highest) throw new LogFormatError(`has id ${pet.id} at ${where}, not above the id before it (${highest})`);
    highest = pet.id;
    pets.push(pet);
    start = end + 1;
  }
  return { pets, consumed: start - offset, lines };
}

/**
 * One stored animal from its line. The checks are the cheap ones the hot
 * path needs (an object with an int64 id and categoryId, a string name, a
 * known status); the line itself is what the service answers.
 */
export function storedPetFromLine(line: string, where: string): StoredPet {
  let value: unknown;
  try {
    // JSON.parse is faster than the int64-exact parser (docs/performance.md); only a
    // line with 16 or more digits in a row can hold a number it would round.
    value = /\d{16}/.test(line) ? parseJson(line) : JSON.parse(line);
  } catch (error) {
    throw new LogFormatError(`has a line that is not JSON at ${where} (${(error as Error).message})`);
  }
  const problem = petProblem(value);
  if (problem) throw new LogFormatError(`has an invalid animal at ${where}: ${problem.field || 'the line'} ${problem.problem}`);
  const pet = value as { id: number | bigint; status?: PetStatus };
  return { id: BigInt(pet.id), status: pet.status, json: line };
}

/** What is wrong with a stored animal, if anything: the field and the problem. */
function petProblem(value: unknown): { field: string; problem: string } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { field: '', problem: 'is not an object' };
  const pet = value as Record<string, unknown>;
  if (!isInt64(pet.id)) return { field: 'id', problem: 'is not an int64' };
  if (typeof pet.name !== 'string') return { field: 'name', problem: 'is not a string' };
  if (!isInt64(pet.categoryId)) return { field: 'categoryId', problem: 'is not an int64' };
  if (pet.status !== undefined && !(PET_STATUSES as readonly unknown[]).includes(pet.status)) return { field: 'status', problem: STATUS_RULE };
  return undefined;
}

function isInt64(value: unknown): boolean {
  if (typeof value === 'number') return Number.isSafeInteger(value);
  return typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX;
}

/** An animal (as parseJson gives it: bigints beyond 2^53) as its stored line and index entry. */
export function storedPet(pet: { id: number | bigint; status?: PetStatus | undefined }): StoredPet {
  return { id: BigInt(pet.id), status: pet.status, json: stringifyJson(pet) };
}

/** The whole text of a log holding `pets` (in ascending id order). */
export function logText(pets: readonly StoredPet[]): string {
  let text = `${LOG_HEADER_EXAMPLE}\n`;
  for (const pet of pets) text += `${pet.json}\n`;
  return text;
}
