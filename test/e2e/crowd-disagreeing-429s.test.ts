import { describe, expect, it } from 'vitest';
import type { LimitedServiceOptions } from '../helpers/limited-service';
import { CASE_TIMEOUT_MS, crowdOnOneKey, expectEveryoneDone, expectNoBan } from '../helpers/crowd-on-one-key';

/**
 * 40 `pets list` at once on a used-up Free key whose 429s disagree with the window, at the real
 * minute. A file of its own, so that it runs beside the 150-process crowds' waits
 * (test/e2e/crowd.test.ts) rather than after them; 40 processes start while those sleep.
 */

describe('40 `pets list` at once when the 429s disagree with the window (the real minute)', () => {
  // One window holds them all: each gets its pets after the reopen, whatever the 429s before it said.
  const refusals: Array<[string, LimitedServiceOptions['refusal']]> = [
    ['Retry-After 1 while X-RateLimit-Reset names the reopen', 'short-retry-after'],
    ['429s with neither Retry-After nor any X-RateLimit-*', 'no-time'],
  ];
  it.for(refusals)('%s: no ban, and every process gets its pets', { timeout: CASE_TIMEOUT_MS }, async ([, refusal]) => {
    const crowd = await crowdOnOneKey(1, undefined, { processes: 40, refusal });
    expectNoBan(crowd);
    expect(crowd.run.members.map((member) => member.code)).toEqual(crowd.run.members.map(() => 0));
    expectEveryoneDone(crowd);
  });
});
