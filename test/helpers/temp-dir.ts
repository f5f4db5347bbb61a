import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';

/** vitest's globalSetup: one private folder per run, removed when the run ends, even after a test that fails half-way. */
export default function setup(project: TestProject): () => void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-tests-'));
  project.provide('tmpRoot', root);
  return () => fs.rmSync(root, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    tmpRoot: string;
  }
}

/** A fresh, private folder in the run's own temporary folder. */
export function tempDir(prefix = 'petctl-test-'): string {
  return fs.mkdtempSync(path.join(inject('tmpRoot'), prefix));
}
