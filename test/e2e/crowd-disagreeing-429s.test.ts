import { describe, expect, it } from 'vitest';
import type { LimitedServiceOptions } from '../helpers/limited-service';
import { CASE_TIMEOUT_MS, crowdOnOneKey, expectEveryoneDone, expectNoBan } from '../helpers/crowd-on-one-key';

/** A file of its own, so that it runs beside crowd.test.ts's waits rather than after them. */

describe('40 `pets list` at once when the 429s disagree with the window (the real minute)', () => {
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
