import { expect, it } from 'vitest';
import type { Content, UnknownFate, UnknownRow } from '../../src/bulk/records';
import { UnknownRowMatcher } from '../../src/bulk/unknown-rows';
import type { Pet } from '../../src/schemas/pet';

/** --retry-unknown's rule (unknown-match.ts): what becomes of each row sent without an answer, given the animals listed. */

const row = (n: number, sent: Content): UnknownRow => ({ row: n, line: n + 1, identity: { source: '/in.csv', content: [...sent, 1] } });
const pet = (id: number | bigint, name: string, categoryId: number | bigint, status?: Pet['status']): Pet => ({ id, name, categoryId, ...(status === undefined ? {} : { status }) });

const REX: Content = ['Rex', '1', 'available'];
const BIG: Content = ['Big', '9007199254740993', 'sold'];

type Case = [name: string, rows: UnknownRow[], animals: Pet[], accounted: string[], expected: Record<number, string>];

/** A fate written short: `found 101`, `send`, `ambiguous 101,102`. */
function short(fates: Map<number, UnknownFate>): Record<number, string> {
  return Object.fromEntries(
    [...fates].map(([n, fate]) => [n, fate.action === 'found' ? `found ${String(fate.pet.id)}` : fate.action === 'ambiguous' ? `ambiguous ${fate.candidates.join(',')}` : fate.resend ? 'send' : 'plain send']),
  );
}

const cases: Case[] = [
  ['one animal with the fields sent: found', [row(1, REX)], [pet(100, 'Max', 1, 'available'), pet(101, 'Rex', 1, 'available')], [], { 1: 'found 101' }],
  ['none: sent again', [row(1, REX)], [pet(100, 'Max', 1, 'available')], [], { 1: 'send' }],
  ['two: ambiguous, ids in order', [row(1, REX)], [pet(205, 'Rex', 1, 'available'), pet(17, 'Rex', 1, 'available')], [], { 1: 'ambiguous 17,205' }],
  ['the name exactly: case and spaces differ', [row(1, REX)], [pet(1, 'rex', 1, 'available'), pet(2, 'Rex ', 1, 'available')], [], { 1: 'send' }],
  ['another category or status is another animal', [row(1, REX)], [pet(1, 'Rex', 2, 'available'), pet(2, 'Rex', 1, 'sold'), pet(3, 'Rex', 1)], [], { 1: 'send' }],
  ['sent without a status: only an animal without one', [row(1, ['Luna', '2', ''])], [pet(1, 'Luna', 2, 'available'), pet(2, 'Luna', 2)], [], { 1: 'found 2' }],
  ['categoryId beyond 2^53 compared exactly', [row(1, BIG)], [pet(1, 'Big', 9007199254740992n, 'sold'), pet(2, 'Big', 9007199254740993n, 'sold')], [], { 1: 'found 2' }],
  ['ids beyond 2^53 sorted exactly', [row(1, REX)], [pet(9007199254740995n, 'Rex', 1, 'available'), pet(9007199254740993n, 'Rex', 1, 'available')], [], { 1: 'ambiguous 9007199254740993,9007199254740995' }],
  ['an animal the journal records as created is accounted for', [row(1, REX)], [pet(17, 'Rex', 1, 'available'), pet(205, 'Rex', 1, 'available')], ['17'], { 1: 'found 205' }],
  ['only accounted animals: sent again', [row(1, REX)], [pet(17, 'Rex', 1, 'available')], ['17'], { 1: 'send' }],
  ['one animal listed twice (pages shifted) is one candidate', [row(1, REX)], [pet(101, 'Rex', 1, 'available'), pet(101, 'Rex', 1, 'available')], [], { 1: 'found 101' }],
  ['two identical rows, no animal: both sent again', [row(1, REX), row(2, REX)], [], [], { 1: 'send', 2: 'send' }],
  ['two identical rows, one animal: which row it is cannot be told', [row(1, REX), row(2, REX)], [pet(101, 'Rex', 1, 'available')], [], { 1: 'ambiguous 101', 2: 'ambiguous 101' }],
  ['two identical rows, two animals: each matches two, ambiguous', [row(1, REX), row(2, REX)], [pet(101, 'Rex', 1, 'available'), pet(102, 'Rex', 1, 'available')], [], { 1: 'ambiguous 101,102', 2: 'ambiguous 101,102' }],
  [
    'rows with other fields are settled apart',
    [row(1, REX), row(2, ['Tom', '2', 'pending']), row(3, ['Kiwi', '3', 'available'])],
    [pet(101, 'Rex', 1, 'available'), pet(102, 'Tom', 2, 'pending'), pet(103, 'Tom', 2, 'pending')],
    [],
    { 1: 'found 101', 2: 'ambiguous 102,103', 3: 'send' },
  ],
];

it.each(cases)('UnknownRowMatcher over a whole listing: %s', (_name, rows, animals, accounted, expected) => {
  const matcher = new UnknownRowMatcher(rows, new Set(accounted));
  for (const animal of animals) matcher.see(animal);
  expect(short(matcher.fates())).toEqual(expected);
});

it('a walk may stop early only once every row is ambiguous: no further animal can change an answer', () => {
  const matcher = new UnknownRowMatcher([row(1, REX), row(2, ['Tom', '2', 'pending']), row(3, ['Tom', '2', 'pending'])], new Set());
  expect(matcher.statuses()).toEqual(new Set(['available', 'pending']));
  matcher.see(pet(101, 'Rex', 1, 'available'));
  // One candidate for one row: a second would make it ambiguous.
  expect(matcher.settled('available')).toBe(false);
  matcher.see(pet(102, 'Tom', 2, 'pending'));
  // Two identical rows with any candidate are ambiguous whatever follows.
  expect(matcher.settled('pending')).toBe(true);
  expect(matcher.settled()).toBe(false);
  matcher.see(pet(103, 'Rex', 1, 'available'));
  expect(matcher.settled('available')).toBe(true);
  expect(matcher.settled()).toBe(true);
});
