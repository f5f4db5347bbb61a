import { describe, expect, it } from 'vitest';
import { PRUNE_AFTER_MS, isStale } from '../../src/api/limits/entry';
import type { LimitEntry } from '../../src/api/limits/entry';
import { type Claim, MAX_PROBE_LEASE_MS, PROBE_POLL_MS, SILENT_LIMIT_MS, UNTRACKED_MS, decide, giveBack, observe } from '../../src/api/waits';

const NOW = 1_768_471_200_000;
const LEASE = MAX_PROBE_LEASE_MS;
const claim = (reserve = 0, solo = false, block = 1): Claim => ({ reserve, solo, probeLeaseMs: LEASE, block });
const window = (remaining: number, resetAt = NOW + 30_000): LimitEntry['window'] => ({ reset: Math.ceil(resetAt / 1000), resetAt, remaining });

describe('decide: the one claim rule, for every request', () => {
  it.each([
    { what: 'nothing recorded: go as the probe', entry: undefined, want: { go: true, entry: { probeUntil: NOW + LEASE } } },
    { what: 'a probe in flight: look again shortly', entry: { probeUntil: NOW + 3000 }, want: { go: false, until: NOW + PROBE_POLL_MS, reason: 'probe' } },
    { what: 'a live window with a slot: claim it', entry: { window: window(3) }, want: { go: true, entry: { window: window(2) }, slots: 1 } },
    { what: 'a live window used up: wait for its reset', entry: { window: window(0) }, want: { go: false, until: NOW + 30_000, reason: 'window' } },
    { what: 'an ended window: probe the next one', entry: { window: window(0, NOW - 1) }, want: { go: true, entry: { probeUntil: NOW + LEASE } } },
    { what: 'an ended window with a probe in flight: wait for its answer', entry: { window: window(0, NOW - 1), probeUntil: NOW + 900 }, want: { go: false, until: NOW + PROBE_POLL_MS, reason: 'probe' } },
    {
      what: 'a 429 or a ban in force comes first',
      entry: { blockedUntil: NOW + 9000, reason: 'key_banned' as const, window: window(50) },
      want: { go: false, until: NOW + 9000, reason: 'key_banned' },
    },
    {
      what: 'a hold after a timeless 429',
      entry: { blockedUntil: NOW + 5000, reason: 'rate_limited' as const, holdMs: 5000 },
      want: { go: false, until: NOW + 5000, reason: 'hold' },
    },
    {
      what: 'a hold that ended: one request probes',
      entry: { blockedUntil: NOW - 1, reason: 'rate_limited' as const, holdMs: 5000 },
      want: { go: true, entry: { blockedUntil: NOW - 1, reason: 'rate_limited', holdMs: 5000, probeUntil: NOW + LEASE } },
    },
    { what: 'a service that names no window: go, claiming nothing', entry: { untrackedUntil: NOW + 1000 }, want: { go: true } },
    {
      what: 'no window named until further ahead than any answer sets it (a clock set back since, a planted time): a probe',
      entry: { untrackedUntil: NOW + 3 * 3_600_000 },
      want: { go: true, entry: { untrackedUntil: NOW + 3 * 3_600_000, probeUntil: NOW + LEASE } },
    },
  ])('$what', ({ entry, want }) => {
    expect(decide(entry, NOW, claim())).toEqual(want);
  });

  it('a probe whose process was killed holds the others up no longer than its lease (5 s at most)', () => {
    expect(decide({ probeUntil: NOW - 1 }, NOW, claim())).toEqual({ go: true, entry: { probeUntil: NOW + LEASE } });
    // Another process's lease, read on a clock a little behind the one that granted it, is still waited for.
    expect(decide({ probeUntil: NOW + MAX_PROBE_LEASE_MS + 5 }, NOW, claim())).toMatchObject({ go: false, reason: 'probe' });
    // One far longer than any petctl grants: the clock was set back since (an hour here), or a hand wrote it.
    expect(decide({ probeUntil: NOW + 2 * MAX_PROBE_LEASE_MS }, NOW, claim())).toMatchObject({ go: false, reason: 'probe' });
    expect(decide({ probeUntil: NOW + 2 * MAX_PROBE_LEASE_MS + 1 }, NOW, claim())).toEqual({ go: true, entry: { probeUntil: NOW + LEASE } });
    expect(decide({ probeUntil: NOW + 3_600_000 }, NOW, claim())).toEqual({ go: true, entry: { probeUntil: NOW + LEASE } });
    expect(decide(undefined, NOW, { reserve: 0, solo: false, probeLeaseMs: 60_000, block: 1 })).toEqual({ go: true, entry: { probeUntil: NOW + MAX_PROBE_LEASE_MS } });
  });

  it('solo (the shared store fell back): every request probes, one in flight, each still claiming its slot', () => {
    expect(decide({ window: window(3) }, NOW, claim(0, true))).toEqual({ go: true, entry: { window: window(2), probeUntil: NOW + LEASE } });
    expect(decide({ window: window(3), probeUntil: NOW + 500 }, NOW, claim(0, true))).toEqual({ go: false, until: NOW + PROBE_POLL_MS, reason: 'probe' });
    expect(decide({ untrackedUntil: NOW + 1000 }, NOW, claim(0, true))).toEqual({ go: true, entry: { untrackedUntil: NOW + 1000, probeUntil: NOW + LEASE } });
    expect(decide({ window: window(0) }, NOW, claim(0, true))).toEqual({ go: false, until: NOW + 30_000, reason: 'window' });
  });

  it('an import treats a window with only the reserve left as used up; other commands take it to the last', () => {
    expect(decide({ window: window(11) }, NOW, claim(10))).toEqual({ go: true, entry: { window: window(10) }, slots: 1 });
    expect(decide({ window: window(10) }, NOW, claim(10))).toEqual({ go: false, until: NOW + 30_000, reason: 'window' });
    expect(decide({ window: window(10) }, NOW, claim())).toEqual({ go: true, entry: { window: window(9) }, slots: 1 });
    expect(decide({ window: window(1) }, NOW, claim())).toEqual({ go: true, entry: { window: window(0) }, slots: 1 });
  });
});

describe('decide: claims in blocks', () => {
  it('claims a block of slots at once, never more than the window has beyond the reserve', () => {
    expect(decide({ window: window(100) }, NOW, claim(0, false, 30))).toEqual({ go: true, entry: { window: window(70) }, slots: 30 });
    expect(decide({ window: window(12) }, NOW, claim(10, false, 30))).toEqual({ go: true, entry: { window: window(10) }, slots: 2 });
    // Every request a probe (the shared store fell back): one slot at a time.
    expect(decide({ window: window(100) }, NOW, claim(0, true, 30))).toEqual({ go: true, entry: { window: window(99), probeUntil: NOW + LEASE } });
  });

  it('slots not sent go back while their window lasts, and only to it', () => {
    expect(giveBack({ window: window(70) }, Math.ceil((NOW + 30_000) / 1000), 25, NOW)).toEqual({ window: window(95) });
    expect(giveBack({ window: window(70) }, Math.ceil((NOW + 30_000) / 1000) - 60, 25, NOW)).toBeUndefined();
    expect(giveBack({ window: window(70) }, Math.ceil((NOW + 30_000) / 1000), 25, NOW + 30_000)).toBeUndefined();
    expect(giveBack(undefined, 1, 25, NOW)).toBeUndefined();
  });
});

describe('observe', () => {
  const answer = (remaining: number, resetAt = NOW + 30_000, status = 200) => ({ status, remaining, reset: Math.ceil(resetAt / 1000), resetAt });

  it('a single command records the window it learns, however little is left; a paced answer ends the probe', () => {
    expect(observe(undefined, answer(299), NOW)).toEqual({ window: window(299) });
    expect(observe(undefined, answer(1), NOW)).toEqual({ window: window(1) });
    expect(observe({ window: window(20) }, answer(20), NOW)).toBeUndefined();
    expect(observe({ probeUntil: NOW + LEASE }, answer(299), NOW)).toEqual({ window: window(299) });
  });

  it('an answer lowers the budget of the same window, never raises it, nor does a Reset a second later', () => {
    // Requests in flight are already counted; a Reset a second later may be the same window, with jitter.
    expect(observe({ window: window(10) }, answer(7), NOW)).toEqual({ window: window(7) });
    expect(observe({ window: window(10) }, answer(12), NOW)).toBeUndefined();
    expect(observe({ window: window(3) }, answer(50, NOW + 31_000), NOW)).toEqual({ window: window(3, NOW + 31_000) });
  });

  it("a closer estimate of the same window's end replaces a later one (each is never early)", () => {
    const closer = { reset: Math.ceil((NOW + 30_000) / 1000), resetAt: NOW + 29_400, remaining: 10 };
    expect(observe({ window: window(10) }, answer(10, NOW + 29_400), NOW)).toEqual({ window: closer });
  });

  it("an older window's answer is ignored; the next window's, while ours looks live, takes the server's count", () => {
    expect(observe({ window: window(40) }, answer(2, NOW + 10_000), NOW)).toBeUndefined();
    // Our end runs late: ours ends in 1 s by our estimate, with the reserve's 10 left.
    const next = NOW + 61_000;
    expect(observe({ window: window(10, NOW + 1_000) }, answer(299, next), NOW)).toEqual({ window: window(299, next) });
  });

  it('Remaining 0 blocks every process until the reset; a 429 until its Retry-After, else until its reset', () => {
    expect(observe(undefined, answer(0), NOW)).toEqual({ window: window(0), blockedUntil: NOW + 30_000, reason: 'quota_exhausted' });
    // Its own Remaining/Reset hold nothing longer than Retry-After; without one, that window is emptied.
    const limited = { ...answer(0), status: 429, retryAt: NOW + 4000 };
    expect(observe({ window: window(3) }, limited, NOW)).toEqual({ window: window(3), blockedUntil: NOW + 4000, reason: 'rate_limited' });
    expect(observe(undefined, limited, NOW)).toEqual({ blockedUntil: NOW + 4000, reason: 'rate_limited' });
    const emptied = { window: window(0), blockedUntil: NOW + 30_000, reason: 'rate_limited' };
    expect(observe({ window: window(3) }, { ...answer(0), status: 429 }, NOW)).toEqual(emptied);
  });

  it('a ban blocks until its Retry-After, and a 429 never shortens a longer block', () => {
    const banned = { status: 429, retryAt: NOW + 600_000, banned: true };
    expect(observe(undefined, banned, NOW)).toEqual({ blockedUntil: NOW + 600_000, reason: 'key_banned' });
    expect(observe({ blockedUntil: NOW + 600_000, reason: 'key_banned' }, { status: 429, retryAt: NOW + 1000 }, NOW)).toBeUndefined();
  });

  it('a Reset that could not be read (garbage, past, far ahead) records no window', () => {
    // Taken as no budget at all, rather than probing on every request.
    expect(observe(undefined, { status: 200, remaining: 0, reset: 12, resetAt: undefined }, NOW)).toEqual({ untrackedUntil: NOW + UNTRACKED_MS });
  });

  it('keeps an entry until every time in it is a day old (isStale)', () => {
    expect(isStale({ blockedUntil: NOW - PRUNE_AFTER_MS - 1 }, NOW)).toBe(true);
    expect(isStale({ blockedUntil: NOW - PRUNE_AFTER_MS - 1, window: window(0, NOW - 1000) }, NOW)).toBe(false);
  });
});

describe('paced senders against a fixed-window server (simulated)', () => {
  function simulate(options: { senders: number; inFlight: number; limit: number; windowMs: number; requests: number; seed: number }) {
    let seed = options.seed;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    let now = 0;
    let shared: LimitEntry | undefined;
    let windowStart = -Infinity;
    let used = 0;
    let tooMany = 0;
    let sent = 0;
    let done = 0;
    const events: Array<{ at: number; run: () => void }> = [];
    const at = (time: number, run: () => void) => {
      events.push({ at: time, run });
      events.sort((a, b) => a.at - b.at);
    };
    const serve = () => {
      if (now >= windowStart + options.windowMs) {
        windowStart = now;
        used = 0;
      }
      const resetAt = windowStart + options.windowMs;
      if (used >= options.limit) {
        tooMany += 1;
        return { status: 429, remaining: 0, reset: Math.ceil(resetAt / 1000), resetAt: Math.ceil(resetAt / 1000) * 1000, retryAt: resetAt };
      }
      used += 1;
      return { status: 200, remaining: options.limit - used, reset: Math.ceil(resetAt / 1000), resetAt: Math.ceil(resetAt / 1000) * 1000 };
    };
    const slot = () => {
      if (sent >= options.requests) return;
      const decision = decide(shared, now, claim());
      if (!decision.go) return at(Math.max(now + 1, decision.until), slot);
      if (decision.entry) shared = decision.entry;
      sent += 1;
      at(now + 1 + random() * 40, () => {
        const reply = serve();
        at(now + 1 + random() * 40, () => {
          const next = observe(shared, reply, now);
          if (next) shared = next;
          if (reply.status === 429) sent -= 1;
          else done += 1;
          slot();
        });
      });
    };
    for (let s = 0; s < options.senders * options.inFlight; s++) at(0, slot);
    while (events.length > 0 && done < options.requests) {
      const event = events.shift()!;
      now = event.at;
      event.run();
    }
    return { tooMany, elapsedMs: now, done };
  }

  it.each([
    { senders: 1, inFlight: 4, seed: 1 },
    { senders: 2, inFlight: 4, seed: 2 },
    { senders: 2, inFlight: 16, seed: 3 },
  ])('$senders sender(s) × $inFlight in flight: no 429, and the limit nearly used', ({ senders, inFlight, seed }) => {
    const limit = 300;
    const windowMs = 10_000;
    const result = simulate({ senders, inFlight, limit, windowMs, requests: 1000, seed });
    expect(result.done).toBe(1000);
    expect(result.tooMany).toBe(0);
    // 1,000 requests at 300 a window need 3 full windows and a part of a fourth; the reset is
    // only known to the second, so each wait may run up to a second long.
    expect(result.elapsedMs).toBeLessThan(3 * (windowMs + 1000) + 2000);
  });
});

describe('a server that sends no budget', () => {
  it('ends the probe (a 429 too, which blocks by Retry-After) and frees paced requests from probing a while', () => {
    const after = observe({ probeUntil: NOW + LEASE }, { status: 201 }, NOW);
    expect(after).toEqual({ untrackedUntil: NOW + UNTRACKED_MS });
    expect(decide(after, NOW + 1, claim())).toEqual({ go: true });
    expect(decide(after, NOW + UNTRACKED_MS + 1, claim())).toEqual({ go: true, entry: { untrackedUntil: NOW + UNTRACKED_MS, probeUntil: NOW + UNTRACKED_MS + 1 + LEASE } });
    const refused = observe({ probeUntil: NOW + LEASE }, { status: 429, retryAt: NOW + 1000 }, NOW);
    expect(refused).toEqual({ blockedUntil: NOW + 1000, reason: 'rate_limited' });
    // Hours ahead (a clock set back since) is no answer's: the next answer without limits sets it again.
    expect(observe({ untrackedUntil: NOW + 3 * 3_600_000 }, { status: 200 }, NOW)).toEqual({ untrackedUntil: NOW + UNTRACKED_MS });
  });
});

describe('a server that limits without saying how far', () => {
  const now = 1_800_000_000_000;
  it('a 429 with neither a time nor a budget holds every request; after the hold one probes, and for an hour every request probes one at a time', () => {
    const held = observe({ untrackedUntil: now + UNTRACKED_MS }, { status: 429 }, now)!;
    expect(held).not.toHaveProperty('untrackedUntil');
    expect(held.silentLimitUntil).toBe(now + SILENT_LIMIT_MS);
    expect(decide(held, now + 1, claim())).toMatchObject({ go: false, reason: 'hold' });
    const after = held.blockedUntil! + 1;
    const probing = decide(held, after, claim());
    expect(probing).toMatchObject({ go: true, entry: { probeUntil: after + LEASE } });
    expect(decide(probing.go ? probing.entry : undefined, after + 1, claim())).toMatchObject({ go: false, reason: 'probe' });
    // The probe gets through; its answer names no budget, and frees nobody: the next request probes alone again.
    const answered = observe(probing.go ? probing.entry : undefined, { status: 201 }, after + 10)!;
    expect(answered).not.toHaveProperty('holdMs');
    expect(answered).not.toHaveProperty('untrackedUntil');
    expect(decide(answered, after + 11, claim())).toMatchObject({ go: true, entry: { probeUntil: after + 11 + LEASE } });
    expect(decide({ ...answered, probeUntil: after + 11 + LEASE }, after + 12, claim())).toMatchObject({ go: false, reason: 'probe' });
    // A 429 that carries a budget is not such a server.
    const budgeted = observe({ untrackedUntil: now + UNTRACKED_MS }, { status: 429, remaining: 0 }, now)!;
    expect(budgeted).not.toHaveProperty('silentLimitUntil');
  });
});
