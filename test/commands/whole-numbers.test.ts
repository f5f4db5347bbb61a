import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseConcurrency, parseCount, parseLimit, parseMaxAnimals, parseMinuteMs, parsePort, parseReserve } from '../../src/commands/parsers';

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
