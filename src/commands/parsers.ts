import { InvalidArgumentError, Option } from 'commander';
import { LIMIT_MAX, LIMIT_MIN, PET_STATUSES, type PetStatusValue } from '../schemas/constants';
import { STATUS_RULE } from '../schemas/new-pet-rules';
import { int64Problem, parseInt64 } from '../schemas/int64';
import { petStatusOf } from '../schemas/status';

/**
 * Flag and argument parsers. Each throws commander's InvalidArgumentError with
 * what the value must be ("must be a whole number"); main.ts names the flag or
 * argument and repeats the value: `--limit must be …, not "0"` (exit 2).
 */

export function parseLimit(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < LIMIT_MIN || Number(value) > LIMIT_MAX) {
    throw new InvalidArgumentError(`must be a whole number from ${LIMIT_MIN} to ${LIMIT_MAX}`);
  }
  return Number(value);
}

/** A flag or an argument that is an int64: the range is named only for a whole number outside it. */
export function parseInt64Value(value: string): number | bigint {
  const parsed = parseInt64(value);
  if (parsed === undefined) throw new InvalidArgumentError(int64Problem(value));
  return parsed;
}

/** `--status`: in any case and with spaces around, as the service's lower-case word. */
export function parseStatus(value: string): PetStatusValue {
  const status = petStatusOf(value);
  if (status === undefined) throw new InvalidArgumentError(STATUS_RULE);
  return status;
}

/** `--status <status>`: the choices for help and completion, matched in any case. */
export function statusOption(description: string): Option {
  return new Option('--status <status>', description).choices(PET_STATUSES).argParser(parseStatus);
}

export function parseSeconds(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new InvalidArgumentError('must be a number of seconds, 0 or more');
  return Number(value);
}

export function parsePositiveSeconds(value: string): number {
  const seconds = parseSeconds(value);
  if (seconds <= 0) throw new InvalidArgumentError('must be a number of seconds greater than 0');
  return seconds;
}

export function parseCount(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 100) throw new InvalidArgumentError('must be a whole number from 0 to 100');
  return Number(value);
}

export function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('must be a port from 0 to 65535 (0 picks a free one)');
  return Number(value);
}

export function parseConcurrency(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 16) throw new InvalidArgumentError('must be a whole number from 1 to 16');
  return Number(value);
}

/** `pets add --reserve`: requests of every window to leave unused; 0 or more. */
/** `--delimiter`: one character, or `tab`; a quote or a line break would cut fields where quotes and lines do. */
export function parseDelimiter(value: string): string {
  const delimiter = value === 'tab' || value === '\\t' ? '\t' : value;
  if ([...delimiter].length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new InvalidArgumentError('must be one character other than a quote or a line break, or tab');
  }
  return delimiter;
}

export function parseReserve(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('must be a whole number of requests, 0 or more');
  return Number(value);
}

export interface EnterpriseQuota {
  perMinute: number;
  perDay: number;
}

/** `<per-minute>/<per-day>`, both whole numbers of at least 1, e.g. `20000/5000000`. */
export function parseEnterpriseQuota(value: string): EnterpriseQuota {
  const match = /^(\d{1,15})\/(\d{1,15})$/.exec(value.trim());
  const perMinute = Number(match?.[1]);
  const perDay = Number(match?.[2]);
  if (!match || perMinute < 1 || perDay < 1) {
    throw new InvalidArgumentError('must be <per-minute>/<per-day>, two whole numbers of at least 1, e.g. 20000/5000000');
  }
  return { perMinute, perDay };
}

export function parseMinuteMs(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 100) {
    throw new InvalidArgumentError('must be whole milliseconds, 100 or more');
  }
  return ms;
}
