import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWriteCutShort } from '../../src/bulk/journal-format';
import type { RecordEntry } from '../../src/bulk/records';
import { INT64_MAX } from '../../src/schemas/constants';
import { stringifyJson } from '../../src/schemas/json';
import { RUNS } from './helpers';

/** A kill or a full disk can stop a write after any byte, a multi-byte character's included. */

const text = fc.string({ unit: 'binary', maxLength: 12 });
// Keys in the order petctl writes them, the shelter's id only with --id-column.
const entry = fc.record(
  {
    source: text,
    id: text,
    content: fc.tuple(text, fc.bigInt({ min: 0n, max: INT64_MAX }).map(String), fc.constantFrom('', 'available', 'sold'), fc.integer({ min: 1, max: 99 })),
    state: fc.constant('created' as const),
    pet: fc.record({ id: fc.bigInt({ min: 0n, max: INT64_MAX }), name: text, categoryId: fc.bigInt({ min: 0n, max: INT64_MAX }), status: fc.constantFrom('available', 'pending', 'sold') }),
    at: fc.constant('2026-11-25T14:02:00.000Z'),
  },
  { requiredKeys: ['source', 'content', 'state', 'pet', 'at'] },
) satisfies fc.Arbitrary<RecordEntry>;

describe('journal lines cut short', () => {
  it('every byte prefix of an entry line is a write cut short; the whole line is not', () => {
    fc.assert(
      fc.property(entry, (value) => {
        const line = Buffer.from(stringifyJson(value));
        for (let end = 0; end < line.length; end++) expect(isWriteCutShort(line.subarray(0, end).toString('utf8'), '{"source":'), line.subarray(0, end).toString()).toBe(true);
        expect(isWriteCutShort(line.toString('utf8'), '{"source":')).toBe(false);
      }),
      { numRuns: RUNS.pure / 10 },
    );
  });

  it('a prefix with a zero byte in it, or one that does not start like an entry, is not', () => {
    fc.assert(
      fc.property(entry, fc.nat(), (value, at) => {
        const line = stringifyJson(value);
        const cut = line.slice(0, 1 + (at % line.length));
        const zeroed = `${cut.slice(0, -1)}\0`;
        expect(isWriteCutShort(zeroed, '{"source":')).toBe(false);
        expect(isWriteCutShort(cut.replace('"source"', '"sourcE"'), '{"source":')).toBe(!cut.includes('"source"'));
      }),
      { numRuns: RUNS.pure },
    );
  });

  it.each([
    ['nothing (the write stopped before its first byte)', '', true],
    ['a decimal cut at its point', '{"source":"a","x":1.', true],
    ['an escape cut short', '{"source":"a\\u00', true],
    ['a literal cut short', '{"source":"a","x":tr', true],
    ['a whole entry followed by more', '{"source":"a"}{', false],
    ['a key without its colon', '{"source" "a"', false],
    ['a comma where a key belongs', '{"source":"a",,', false],
    ['a bad escape', '{"source":"a\\x', false],
    ['a raw tab in a string', '{"source":"a\tb', false],
    ['a number with two points', '{"source":1.2.', false],
    ['a word that is no literal', '{"source":nope', false],
    ['text typed over a line', 'Bella was adopted', false],
    ['JSON of another shape', '{"broken":', false],
  ])('%s: %s', (_what, line, cutShort) => {
    expect(isWriteCutShort(line, '{"source":')).toBe(cutShort);
  });
});
