import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/api/limits/file-store';
import { openGate } from '../../src/api/limits/gate';
import { BACKOFF_CAP_MS, HOLD_CAP_MS, HOLD_MIN_MS, backoffMs } from '../../src/api/waits';
import {
  MAX_PLAUSIBLE_RESET_MS,
  MAX_RETRY_AFTER_MS,
  parseHttpDate,
  parseRateHeaders,
  parseRetryAfter,
  resetDelayMs,
} from '../../src/api/limits/headers';
import { RateLimitError } from '../../src/errors';
import { FakeTime, fakeClient, fakeService } from '../helpers/fake-core';
import { tempDir } from '../helpers/temp-dir';
import { RUNS } from './helpers';

/**
 * The model of waiting over random answers: the real HttpClient and state-file gate (each command a new process on
 * the file), a fake service answering from a generated script, a fake clock; the four properties are numbered below.
 * Then the rate-limit headers it reads, over any text.
 */

interface Scripted {
  status: 200 | 429;
  banned: boolean;
  /** Retry-After in seconds (a 429 only). */
  retryAfterS?: number;
  /** X-RateLimit-Remaining: none left, or plenty (a single command tracks no budget above a low-water mark). */
  remaining?: 0 | 500;
  /** X-RateLimit-Reset in seconds from the answer: earlier or later than Retry-After, or none. */
  resetInS?: number;
}

const answerArb: fc.Arbitrary<Scripted> = fc
  .record({
    status: fc.constantFrom<200 | 429>(200, 429, 429),
    banned: fc.boolean(),
    retryAfterS: fc.option(fc.integer({ min: 0, max: 90 }), { nil: undefined }),
    remaining: fc.option(fc.constantFrom<0 | 500>(0, 500), { nil: undefined }),
    resetInS: fc.option(fc.integer({ min: 1, max: 150 }), { nil: undefined }),
  })
  .map((answer) => ({
    ...answer,
    banned: answer.status === 429 && answer.banned && answer.retryAfterS !== undefined && answer.retryAfterS % 4 === 0,
    retryAfterS: answer.status === 429 ? answer.retryAfterS : undefined,
    // Remaining without Reset (or the reverse) is ignored by petctl; keep them together so both matter.
    remaining: answer.resetInS === undefined ? undefined : answer.remaining,
  }));

interface Sent {
  at: number;
  answer: Scripted;
  /** X-RateLimit-Reset as sent, in epoch ms. */
  resetAt?: number;
}

async function play(script: Scripted[], maxWaitS: number, retries: number) {
  const time = new FakeTime();
  const sent: Sent[] = [];
  const { agent } = fakeService(time, (request) => {
    const answer = script[sent.length] ?? { status: 200 as const, banned: false };
    const headers: Record<string, string> = {};
    let resetAt: number | undefined;
    if (answer.resetInS !== undefined) {
      const reset = Math.ceil(request.at / 1000) + answer.resetInS;
      resetAt = reset * 1000;
      headers['x-ratelimit-reset'] = String(reset);
      if (answer.remaining !== undefined) headers['x-ratelimit-remaining'] = String(answer.remaining);
    }
    if (answer.retryAfterS !== undefined) headers['retry-after'] = String(answer.retryAfterS);
    sent.push({ at: request.at, answer, resetAt });
    const body = answer.status === 200 ? [] : { code: answer.banned ? 'key_banned' : 'rate_limited', message: 'limited', status: 429 };
    return { status: answer.status, headers, body };
  });
  const file = path.join(tempDir(), 'state.json');
  const commands: Array<{ waitedMs: number }> = [];
  // Commands one after another, each a new process on the same state file, until the script is used up.
  for (let run = 0; sent.length < script.length && run < 4 * script.length + 4; run++) {
    const gate = openGate(openFileStore(file, 'https://api.test/v1', 'pk_test_fake_core', () => time.now), { now: () => time.now });
    const command = { waitedMs: 0 };
    commands.push(command);
    const { http } = fakeClient(time, agent, gate, {
      maxWaitMs: maxWaitS * 1000,
      retries,
      wait: async (ms) => {
        command.waitedMs += ms;
        time.now += ms;
      },
    });
    const before = sent.length;
    try {
      await http.send({ method: 'GET', path: '/pets' });
    } catch (error) {
      if (!(error instanceof RateLimitError)) throw error;
      // Nothing sent: the user tries again when the message said (or a second later).
      if (sent.length === before) time.now = Math.max(time.now + 1, error.retryAt ?? time.now + 1000);
    }
  }
  await agent.close();
  return { sent, commands };
}

/** Until when the answers up to `upTo` (included) hold the next request, by the rules other than 429-with-Retry-After. */
function otherHolds(sent: Sent[], upTo: number): number {
  let until = 0;
  for (const { at, answer, resetAt } of sent.slice(0, upTo + 1)) {
    if (answer.status === 429 && answer.retryAfterS && answer.banned) until = Math.max(until, at + answer.retryAfterS * 1000);
    if (answer.status === 429 && !answer.retryAfterS) until = Math.max(until, resetAt ?? at + HOLD_CAP_MS);
    if (answer.status === 200 && answer.remaining === 0 && resetAt !== undefined) until = Math.max(until, resetAt);
  }
  return until;
}

describe('the model of waiting, over random answers', () => {
  it('never before Retry-After; not held more than 1 s past it unless another rule holds; never more than --max-wait per command', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answerArb, { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 4 }), async (script, maxWaitS, retries) => {
        const { sent, commands } = await play(script, maxWaitS, retries);
        sent.forEach(({ at, answer, resetAt }, j) => {
          // 4. A 429 that names no usable time holds everything for HOLD_MIN_MS at least.
          if (answer.status === 429 && !answer.retryAfterS && resetAt === undefined) {
            for (const later of sent.slice(j + 1)) expect(later.at).toBeGreaterThanOrEqual(at + HOLD_MIN_MS);
          }
          if (answer.status !== 429 || !answer.retryAfterS) return;
          const retryAt = at + answer.retryAfterS * 1000;
          // 1. Nothing goes before it.
          for (const later of sent.slice(j + 1)) expect(later.at).toBeGreaterThanOrEqual(retryAt);
          // 2. The next one goes within a second of it, or of what else holds it (earlier 429s included).
          const next = sent[j + 1];
          if (next === undefined) return;
          const earlierRetryAfters = sent
            .slice(0, j)
            .filter((s) => s.answer.status === 429 && s.answer.retryAfterS)
            .map((s) => s.at + s.answer.retryAfterS! * 1000);
          const release = Math.max(retryAt, otherHolds(sent, j), ...earlierRetryAfters);
          expect(next.at).toBeLessThanOrEqual(release + 1000);
        });
        // 3. --max-wait bounds each command's total.
        for (const command of commands) expect(command.waitedMs).toBeLessThanOrEqual(maxWaitS * 1000);
      }),
      { numRuns: RUNS.inProcess / 3 },
    );
  }, 60_000);
});

/** Header values a broken server or proxy might send. */
const headerValue = fc.oneof(
  fc.string(),
  fc.integer().map(String),
  fc.bigInt().map(String),
  fc.double().map(String),
  fc.integer({ min: -5, max: 10 ** 10 }).map((n) => ` ${n} `),
  fc.date({ noInvalidDate: false }).map((date) => (Number.isNaN(date.getTime()) ? 'Invalid Date' : date.toUTCString())),
  fc.constantFrom('', ' ', '-0', '0', '1.5', '1e3', 'Infinity', 'NaN', '0x10', '99999999999999999999999', 'Thu, 01 Jan 1970 00:00:00 GMT'),
);
const epochMs = fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) });

function expectBoundedWait(ms: number | undefined, max: number): void {
  if (ms === undefined) return;
  expect(Number.isFinite(ms)).toBe(true);
  expect(ms).toBeGreaterThanOrEqual(0);
  expect(ms).toBeLessThanOrEqual(max);
}

describe('rate-limit headers never give a negative, NaN or unbounded wait', () => {
  it(`Retry-After, and the delay it leads to (${RUNS.pure} runs)`, () => {
    fc.assert(
      fc.property(headerValue, fc.option(headerValue), epochMs, fc.nat(100), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (value, date, now, attempt, random) => {
        const retryAfterMs = parseRetryAfter(value, parseHttpDate(date ?? undefined), now);
        expectBoundedWait(retryAfterMs, MAX_RETRY_AFTER_MS);
        expectBoundedWait(retryAfterMs ?? backoffMs(attempt, () => random), Math.max(MAX_RETRY_AFTER_MS, BACKOFF_CAP_MS));
      }),
      { numRuns: RUNS.pure },
    );
  });

  it(`X-RateLimit-Limit/Remaining/Reset, and the pacing delay from Reset (${RUNS.pure} runs)`, () => {
    fc.assert(
      fc.property(headerValue, headerValue, headerValue, fc.option(headerValue), epochMs, (limit, remaining, reset, date, now) => {
        const headers: Record<string, string> = { 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': reset };
        const rate = parseRateHeaders((name) => headers[name]);
        for (const field of [rate.limit, rate.remaining, rate.resetEpochSeconds]) expectBoundedWait(field, Number.MAX_VALUE);
        const delay = resetDelayMs(rate.resetEpochSeconds, parseHttpDate(date ?? undefined), now);
        expectBoundedWait(delay, MAX_PLAUSIBLE_RESET_MS);
        if (delay !== undefined) expect(delay).toBeGreaterThan(0);
      }),
      { numRuns: RUNS.pure },
    );
  });
});
