import fs from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';

/** A fresh, private folder in this test run's own temporary folder, which the run removes (helpers/tmp-root.ts). */
export function tempDir(prefix = 'petctl-test-'): string {
  return fs.mkdtempSync(path.join(inject('tmpRoot'), prefix));
}
