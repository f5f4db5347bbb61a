import { type Argument, type Command, InvalidArgumentError, Option } from 'commander';
import { LIMIT_MAX, LIMIT_MIN, PET_STATUSES, type PetStatus } from '../schemas/constants';
import { int64Problem, parseInt64, petStatusOf } from '../schemas/constants';
import { STATUS_RULE } from '../schemas/new-pet-rules';
import { type ColumnMapping, columnKey, sentField } from '../bulk/formats/columns';
import { type Concurrency, IN_FLIGHT } from '../bulk/in-flight';
import { MINUTE_MS_RULE, MIN_MINUTE_MS } from '../sandbox/defaults';

/** The code of a bad value's error: not commander's own, which would put commander's sentence in front. */
export const BAD_VALUE = 'petctl.badValue';

/** Each parser under `command` fails with the whole sentence, `error: --limit must be …, not "0"`, through `fail`. */
export function nameBadValues(command: Command, fail = (message: string): void => command.error(message, { code: BAD_VALUE })): void {
  for (const target of [...command.options, ...command.registeredArguments] as Array<Option | Argument>) {
    const parse = target.parseArg;
    if (parse === undefined) continue;
    const name = target instanceof Option ? (target.long ?? target.short!) : target.name();
    const must = target.argChoices === undefined ? undefined : `must be one of ${target.argChoices.join(', ')}`;
    target.parseArg = <T>(value: string, previous: T): T => {
      try {
        return parse(value, previous);
      } catch (error) {
        if (!(error instanceof InvalidArgumentError)) throw error;
        // Plain quotes: stderr's sanitizer shows any control character in the value as an escape.
        fail(`error: ${name} ${must ?? error.message}, not "${value}"`);
        return previous;
      }
    };
  }
  for (const sub of command.commands) nameBadValues(sub);
}

/** A parser of whole numbers from `min` to `max`, in at most `digits` digits (leading zeros count). */
function wholeNumber(must: string, { min = 0, max = Infinity, digits = Infinity } = {}): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || value.length > digits || Number(value) < min || Number(value) > max) throw new InvalidArgumentError(must);
    return Number(value);
  };
}

export const parseLimit = wholeNumber(`must be a whole number from ${LIMIT_MIN} to ${LIMIT_MAX}`, { min: LIMIT_MIN, max: LIMIT_MAX });
export const parseCount = wholeNumber('must be a whole number from 0 to 100', { max: 100 });
export const parsePort = wholeNumber('must be a port from 0 to 65535 (0 picks a free one)', { max: 65535 });
export const parseReserve = wholeNumber('must be a whole number of requests from 0 to 999999999', { digits: 9 });
export const parseMinuteMs = wholeNumber(MINUTE_MS_RULE, { min: MIN_MINUTE_MS });
export const parseMaxAnimals = wholeNumber('must be a whole number of animals from 1 to 999999999999999', { min: 1, digits: 15 });
const parseInFlight = wholeNumber(`must be auto or a whole number from 1 to ${IN_FLIGHT.max}`, { min: 1, max: IN_FLIGHT.max });

/** A flag or an argument that is an int64: the range is named only for a whole number outside it. */
export function parseInt64Value(value: string): number | bigint {
  const parsed = parseInt64(value);
  if (parsed === undefined) throw new InvalidArgumentError(int64Problem(value));
  return parsed;
}

/** `--status <status>`: the choices for help and completion, matched in any case and with spaces around. */
export function statusOption(description: string): Option {
  return new Option('--status <status>', description).choices(PET_STATUSES).argParser((value): PetStatus => {
    const status = petStatusOf(value);
    if (status === undefined) throw new InvalidArgumentError(STATUS_RULE);
    return status;
  });
}

/** The longest a Node timer can wait (2^31 - 1 ms); a longer one fires at once. */
const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);
const TOO_LONG = `must be at most ${MAX_TIMER_SECONDS} seconds (24 days), the longest a timer can wait`;

const SECONDS_TEXT = /^\d+(\.\d+)?$/;

export function parseSeconds(value: string): number {
  if (!SECONDS_TEXT.test(value)) throw new InvalidArgumentError('must be a number of seconds, 0 or more');
  if (Number(value) > MAX_TIMER_SECONDS) throw new InvalidArgumentError(TOO_LONG);
  return Number(value);
}

/** `--timeout`: one rule for every bad value, so a word is never told "0 or more" and 0 then refused. */
export function parsePositiveSeconds(value: string): number {
  if (!SECONDS_TEXT.test(value) || Number(value) <= 0) {
    throw new InvalidArgumentError('must be a number of seconds greater than 0');
  }
  return parseSeconds(value);
}

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration in milliseconds: `30s`, `5m`, `1h30m`, `500ms`, `1d`; a bare number is seconds. Greater than 0. */
export function parseDuration(value: string): number {
  const text = SECONDS_TEXT.test(value.trim()) ? `${value.trim()}s` : value.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(text)) throw new InvalidArgumentError('must be a duration such as 30s, 5m, 1h30m or 1d');
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) ms += Number(amount) * DURATION_UNITS_MS[unit!]!;
  if (!(ms >= 1)) throw new InvalidArgumentError('must be a duration greater than 0, such as 30s or 5m');
  if (ms > MAX_TIMER_SECONDS * 1000) throw new InvalidArgumentError(`must be at most ${MAX_TIMER_SECONDS}s (24 days), the longest a timer can wait`);
  return Math.round(ms);
}

/** `--cache <duration>` (pets list, pets get, petctl api): the one description, the one parser. */
export function cacheOption(): Option {
  return new Option('--cache <duration>', 'answer from the response cache when it holds this request\'s answer no older than this (30s, 5m, 1h), sending nothing; otherwise send and keep the answer that long').argParser(parseDuration);
}

/** `--concurrency`: `auto` (adapted to the answers: bulk/in-flight.ts), or a fixed level from 1 to 256. */
export function parseConcurrency(value: string): Concurrency {
  return value.trim().toLowerCase() === 'auto' ? 'auto' : parseInFlight(value);
}

/** `--delimiter`: one character, or `tab`; a quote or a line break would cut fields where quotes and lines do. */
export function parseDelimiter(value: string): string {
  const delimiter = value === 'tab' || value === '\\t' ? '\t' : value;
  if ([...delimiter].length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new InvalidArgumentError('must be one character other than a quote or a line break, or tab');
  }
  return delimiter;
}

/** `--column <field=header>`, repeatable: the field matched as headers are (`category_id=Cat` too), the header trimmed. */
export function parseColumn(value: string, previous: readonly ColumnMapping[] = []): ColumnMapping[] {
  const at = value.indexOf('=');
  const header = value.slice(at + 1).trim();
  if (at === -1 || header === '') throw new InvalidArgumentError('must be <field>=<header>, such as categoryId="Category Id"');
  const field = sentField(value.slice(0, at));
  if (field === undefined) throw new InvalidArgumentError('must be <field>=<header>, the field one of name, categoryId, status');
  if (previous.some((mapping) => mapping.field === field)) throw new InvalidArgumentError(`must give each field once (${field} twice)`);
  if (previous.some((mapping) => columnKey(mapping.header) === columnKey(header))) throw new InvalidArgumentError(`must give each header one field (${JSON.stringify(header)} twice)`);
  return [...previous, { field, header }];
}

/** An animal's name: one of only spaces would be refused by the service, as by an import's row. */
export function parseName(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must not be empty');
  return value;
}

/** An address or host name to bind: an empty one would bind every interface unasked. */
export function parseHost(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must be an address or a host name, e.g. 127.0.0.1 or 0.0.0.0');
  return value;
}

export type EnterpriseQuota = { perMinute: number; perDay: number };

/** `<per-minute>/<per-day>`, both whole numbers of at least 1, e.g. `20000/5000000`. */
export function parseEnterpriseQuota(value: string): EnterpriseQuota {
  const match = /^(\d{1,15})\/(\d{1,15})$/.exec(value.trim());
  const perMinute = Number(match?.[1]);
  const perDay = Number(match?.[2]);
  if (!match || perMinute < 1 || perDay < 1) throw new InvalidArgumentError('must be <per-minute>/<per-day>, two whole numbers of at least 1, e.g. 20000/5000000');
  return { perMinute, perDay };
}
