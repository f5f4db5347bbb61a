import { describe, expect, it } from 'vitest';
import { CASE_TIMEOUT_MS, FELL_BACK, MAX_REFUSED, crowdOnOneKey, expectEveryoneDone, expectNoBan } from '../helpers/crowd-on-one-key';
import { noRedisServer, startRedisServer } from '../helpers/redis-server';

/** The service bans after 10 refused in a window. One file, so the cases run one after another. */

describe('150 `pets list` at once on one Free key whose window is used up (the real minute)', () => {
  it(
    'one config folder: no ban, at most 5 refused, each gets its pets or stops with nothing sent',
    async () => {
      const crowd = await crowdOnOneKey(1);
      expectNoBan(crowd);
      expect(crowd.service.counts.refused, '429 answers').toBeLessThanOrEqual(MAX_REFUSED);
      expectEveryoneDone(crowd);
    },
    CASE_TIMEOUT_MS,
  );

  describe.skipIf(noRedisServer)('with the state in a real redis-server (skipped where redis-server is not installed)', () => {
    it(
      'two config folders x 75 on one Redis: no ban, at most 5 refused, and Redis is never taken for down',
      async () => {
        const redis = await startRedisServer();
        try {
          const crowd = await crowdOnOneKey(2, redis.url);
          expectNoBan(crowd);
          expect(crowd.service.counts.refused, '429 answers').toBeLessThanOrEqual(MAX_REFUSED);
          expectEveryoneDone(crowd);
          const fellBack = crowd.run.members.filter((member) => member.stderr.includes(FELL_BACK));
          expect(fellBack.map((member) => member.stderr), 'processes that gave up on a running Redis').toEqual([]);
        } finally {
          await redis.stop();
        }
      },
      CASE_TIMEOUT_MS,
    );

    it(
      'two config folders x 75, Redis frozen (SIGSTOP) before they start: no ban, each gets its pets or stops (exit 5)',
      async () => {
        const redis = await startRedisServer();
        redis.pause();
        try {
          const crowd = await crowdOnOneKey(2, redis.url);
          expectNoBan(crowd);
          expectEveryoneDone(crowd, true);
        } finally {
          redis.resume();
          await redis.stop();
        }
      },
      CASE_TIMEOUT_MS,
    );
  });
});
