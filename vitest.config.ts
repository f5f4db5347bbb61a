import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

/**
 * Files that spend their time asleep (real windows, Retry-After, bans) or on a fixed clock (the
 * sandbox under load for 30 s), whose assertions on time are lower bounds only, longest first.
 * They run first, six at a time: the real minute is their length, not the cores, and the crowd's
 * 150 processes start beside five others at most. Then the rest, which keep the two cores busy,
 * two at a time. A file that asserts a rate or an "about" belongs in the second.
 */
export const waiting = [
  'test/e2e/crowd.test.ts',
  'test/e2e/list-all-real-minute.test.ts',
  'test/e2e/state-store.test.ts',
  'test/e2e/bulk-pacing.test.ts',
  'test/e2e/sandbox-load.test.ts',
  'test/e2e/crowd-disagreeing-429s.test.ts',
  'test/spec/limits.test.ts',
  'test/e2e/rate-limits.test.ts',
  'test/e2e/faults-hostile.test.ts',
  'test/e2e/bulk-retry-unknown.test.ts',
  'test/api/request-hooks.test.ts',
  'test/e2e/startup-modules.test.ts',
];

/** vitest's order (longest or largest first), but the waiting files in the order listed: the longest start at once. */
class WaitingFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = waiting.findIndex((name) => file.moduleId.endsWith(name));
      return index === -1 ? waiting.length : index;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  define: { __PETCTL_VERSION__: JSON.stringify(version) },
  test: {
    // A private temporary folder for the run, removed when it ends (test/helpers/temp-dir.ts).
    globalSetup: ['test/helpers/temp-dir.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    sequence: { sequencer: WaitingFirst },
    projects: [
      {
        extends: true,
        test: { name: 'waiting', include: waiting, maxWorkers: 6, testTimeout: 60_000, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        // e2e tests spawn the built binary and servers; two cores, so two at a time.
        test: { name: 'busy', include: ['test/**/*.test.ts'], exclude: waiting, maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
