import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  parseConcurrency,
  parseCount,
  parseDuration,
  parseEnterpriseQuota,
  parseLimit,
  parseMaxAnimals,
  parseMinuteMs,
  parsePort,
  parseReserve,
} from '../../src/commands/parsers';

/** The whole-number flags: what each takes and refuses, leading zeros and digit counts included. */

const cases: Array<[string, (value: string) => unknown, string[], string[]]> = [
  ['--limit', parseLimit, ['1', '100', '007'], ['0', '101', '1.0', '-1', ' 5', '1e2', '']],
  ['--retries', parseCount, ['0', '100', '0100'], ['101', '1.5', '-0', 'x']],
  ['--port', parsePort, ['0', '65535', '000080'], ['65536', '80 ', '0x50']],
  ['--reserve', parseReserve, ['0', '999999999', '000000001'], ['0000000001', '1000000000', '-1', '1.0']],
  ['--minute-ms', parseMinuteMs, ['100', '0100', '99999999999999999999'], ['99', '100.5', '']],
  ['--max-animals', parseMaxAnimals, ['1', '999999999999999', '000000000000001'], ['0', '0000000000000001', '1000000000000000', '1.0']],
  ['--concurrency', parseConcurrency, ['1', '256', '0256'], ['0', '257', '2.0', 'autox']],
];

describe('whole-number flags', () => {
  it.for(cases)('%s', ([, parse, taken, refused]) => {
    for (const value of taken) expect(parse(value), value).toBe(Number(value));
    for (const value of refused) expect(() => parse(value), value).toThrow(InvalidArgumentError);
  });

  it('--concurrency auto in any case', () => {
    expect(parseConcurrency(' AUTO ')).toBe('auto');
  });
});

describe('parseDuration (--cache)', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1d', 86_400_000],
    ['500ms', 500],
    ['1.5s', 1500],
    ['45', 45_000],
  ])('%s is %i ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'soon', '5 m', '-1s', '1w', 's', '0', '0s', '0.0001s'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(InvalidArgumentError);
  });
});

describe('parseEnterpriseQuota', () => {
  it('reads <per-minute>/<per-day>', () => {
    expect(parseEnterpriseQuota('5000/1000000')).toEqual({ perMinute: 5000, perDay: 1_000_000 });
    expect(parseEnterpriseQuota('1/1')).toEqual({ perMinute: 1, perDay: 1 });
  });

  it.each(['', '5000', '0/10', '10/0', '-1/10', '1.5/10', '10/20/30', 'a/b', '1e3/10', '10000000000000000/1'])('refuses %j', (value) => {
    expect(() => parseEnterpriseQuota(value)).toThrow(/<per-minute>\/<per-day>/);
  });
});
