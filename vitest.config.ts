import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  define: { __PETCTL_VERSION__: JSON.stringify(version) },
  test: {
    include: ['test/**/*.test.ts'],
    // A private temporary folder for the run, removed when it ends (test/helpers/tmp-root.ts).
    globalSetup: ['test/helpers/tmp-root.ts'],
    // e2e tests spawn the built binary and servers; two cores, so keep the pool small.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
