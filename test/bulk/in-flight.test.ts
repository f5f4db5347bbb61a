import { expect, it } from 'vitest';
import { IN_FLIGHT, InFlightLimit, type LevelChange, type Ticket } from '../../src/bulk/in-flight';

const PLENTY = 60_000;

/** Round trips of `level` requests on a fake clock, as the runner reports them. */
function limiter(concurrency: number | 'auto' = 'auto', reserve = 0) {
  let clock = 0;
  const limit = new InFlightLimit(concurrency, () => clock, reserve);
  const changes: LevelChange[] = [];
  let flight: Ticket[] = [];
  // Each request in flight answered `latencyMs` on, with `status` and the window's `remaining` (`window: false`: none);
  // after each answer the slots send again up to the level, at most `count` at once: the next round.
  const roundTrip = (latencyMs: number, { status = 201, remaining = PLENTY, window = true, count = Infinity } = {}) => {
    const fill = (alsoOnWire: number) => {
      while (flight.length + alsoOnWire < Math.min(limit.level, count)) flight.push(limit.sent());
    };
    fill(0);
    const round = flight;
    flight = [];
    clock += latencyMs;
    round.forEach((ticket, index) => {
      const change = limit.answered(ticket, status, window ? remaining : undefined);
      if (change) changes.push(change);
      fill(round.length - index - 1);
    });
    return limit.level;
  };
  /** The requests on the wire, taken out of the rounds to be answered by hand. */
  const takeFlight = () => flight.splice(0);
  return { limit, changes, roundTrip, takeFlight };
}

it('starts at 4 and doubles every round trip while the latency holds and the window has room (slow start); never passes 256', () => {
  const { roundTrip, changes } = limiter();
  const levels = [4, ...Array.from({ length: 5 }, () => roundTrip(50))];
  expect(levels).toEqual([4, 8, 16, 32, 64, 128]);
  expect(changes.every((change) => change.cause === 'latency_held' && change.level === change.from + 1)).toBe(true);
  expect(changes[0]).toMatchObject({ level: 5, from: 4, latencyMs: 50, bestMs: 50 });
  for (let i = 0; i < 7; i += 1) roundTrip(50);
  expect(roundTrip(50)).toBe(IN_FLIGHT.max);
});

it('backs off by a quarter once when the latency rises past 3 x the best, then grows by one a round trip', () => {
  const { roundTrip, changes } = limiter();
  for (let i = 0; i < 3; i += 1) roundTrip(50);
  expect(roundTrip(50)).toBe(64);
  changes.length = 0;
  // The service slows down: the smoothed latency (one answer in 8) climbs past 3 x 50 + 2 ms at the round's third
  // answer; one back-off for the round, whose other answers tell of the level before it.
  expect(roundTrip(400)).toBe(49);
  expect(changes).toEqual([
    { level: 65, from: 64, cause: 'latency_held', latencyMs: 93.75, bestMs: 50 },
    { level: 66, from: 65, cause: 'latency_held', latencyMs: expect.any(Number), bestMs: 50 },
    { level: 49, from: 66, cause: 'latency_rose', latencyMs: expect.any(Number), bestMs: 50 },
  ]);
  expect(changes[2]!.latencyMs).toBeGreaterThan(152);
  // Back at the old latency: 1/level more an answer, about one a round trip (congestion avoidance), no longer double.
  expect([roundTrip(50), roundTrip(50), roundTrip(50), roundTrip(50)]).toEqual([49, 50, 51, 52]);
});

it('keeps backing off while the latency stays high, down to 1', () => {
  const { roundTrip } = limiter();
  expect(roundTrip(10)).toBe(8);
  const levels = Array.from({ length: 8 }, () => roundTrip(100));
  expect(levels).toEqual([7, 5, 3, 3, 2, 1, 1, 1]);
});

it.each([
  ['a latency within the bound (here 2.9 x the best)', [50, 145], [8, 16]],
  ['a sub-millisecond service\'s jitter of a millisecond or two (the 2 ms slack)', [0.4, 1.5, 0.6, 2.4, 0.5], [8, 16, 32, 64, 128]],
])('%s is no rise', (_title, latencies, levels) => {
  const { roundTrip } = limiter();
  expect(latencies.map((ms) => roundTrip(ms))).toEqual(levels);
});

it('halves at once on the first 429, and once only for the requests that were already on the wire', () => {
  const { limit, roundTrip, changes, takeFlight } = limiter();
  roundTrip(50);
  roundTrip(50);
  expect(limit.level).toBe(16);
  changes.length = 0;
  const tickets = takeFlight();
  expect(tickets).toHaveLength(16);
  // The first 429 halves the level before any other answer comes.
  expect(limit.answered(tickets[0]!, 429, 0)).toEqual({ level: 8, from: 16, cause: 'too_many_requests', status: 429 });
  expect(limit.level).toBe(8);
  for (const ticket of tickets.slice(1)) limit.answered(ticket, 429, 0);
  expect(limit.level).toBe(8);
  // Another 429 to a request sent after the back-off halves it again.
  expect(roundTrip(50, { status: 429, remaining: 0 })).toBe(4);
  expect(changes.map((change) => change.level)).toEqual([4]);
});

it('halves on a 5xx the same way', () => {
  const { roundTrip, changes } = limiter();
  roundTrip(50);
  expect(roundTrip(50, { status: 503 })).toBe(4);
  expect(changes.at(-1)).toEqual({ level: 4, from: 8, cause: 'server_error', status: 503 });
  expect(roundTrip(50, { status: 500 })).toBe(2);
  expect(roundTrip(50, { status: 502 })).toBe(1);
  expect(roundTrip(50, { status: 504 })).toBe(1);
});

it.each([
  ['does not grow when the answers name no window: a service that states no limit is met at 4', 0, { window: false }, 4],
  // 20 left, 10 reserved: room for more than 4 and 5 … up to 10.
  ['grows no further than the window has requests left beyond --reserve', 10, { remaining: 20 }, 10],
])('%s', (_title, reserve, answers, level) => {
  const { roundTrip } = limiter('auto', reserve);
  for (let i = 0; i < 5; i += 1) roundTrip(50, answers);
  expect(roundTrip(50, answers)).toBe(level);
});

it('does not grow while a request waits at the gate', () => {
  const { limit, roundTrip } = limiter();
  limit.waits();
  expect(roundTrip(50)).toBe(4);
  limit.waited();
  expect(roundTrip(50)).toBe(8);
});

it('does not grow when less than half the level is on the wire (the level is not what holds the import back)', () => {
  const { roundTrip } = limiter();
  for (let i = 0; i < 4; i += 1) roundTrip(50, { count: 1 });
  expect(roundTrip(50, { count: 1 })).toBe(4);
  // Two of 4 on the wire is half: one more; two of 5 is less than half.
  expect(roundTrip(50, { count: 2 })).toBe(5);
  expect(roundTrip(50, { count: 2 })).toBe(5);
});

it('the best latency follows a service that became slower for good, within two periods', () => {
  const { roundTrip, changes } = limiter();
  roundTrip(10);
  roundTrip(10);
  // Four times slower from now on: it backs off to 1, and stays there while 10 ms is the best in view.
  const rounds = (n: number) => Array.from({ length: n }, () => roundTrip(40));
  expect(rounds(10).at(-1)).toBe(1);
  expect(changes.filter((change) => change.cause === 'latency_rose').length).toBeGreaterThan(1);
  const periods = (2 * IN_FLIGHT.bestPeriodMs) / 40;
  expect(rounds(periods - 40).at(-1)).toBe(1);
  // Then the best is 40 ms: the level grows again, by one a round trip.
  const after = rounds(60);
  expect(after.at(-1)).toBeGreaterThan(20);
  expect(changes.at(-1)).toMatchObject({ cause: 'latency_held', bestMs: 40 });
});

it('--concurrency N: stays at N whatever the answers say', () => {
  const { roundTrip, changes, limit } = limiter(16);
  expect(limit.ceiling).toBe(16);
  roundTrip(50);
  roundTrip(500);
  roundTrip(50, { status: 429 });
  roundTrip(50, { status: 503 });
  expect(limit.level).toBe(16);
  expect(changes).toEqual([]);
});
