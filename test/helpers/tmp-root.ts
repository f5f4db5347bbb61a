import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * vitest's globalSetup: one private folder per test run, under the system's temporary folder, for
 * the config folders and files the tests make (`tempDir()` in helpers/temp-dir.ts). The run removes it
 * when it ends, so `npm test` leaves nothing behind, not even for a test that fails half-way.
 */
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
