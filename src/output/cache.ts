import { UnsafeFileError, describeProblem } from '../errors';
import { formatDuration } from './time';
import { plural } from './waits';

/** What petctl says of its response cache (--cache, petctl cache clear). An answer's age: `0s`, `12s`, `1m05s`. */
export function fromCacheLine(ageMs: number): string {
  return `from cache, ${ageMs < 60_000 ? `${Math.floor(ageMs / 1000)}s` : formatDuration(ageMs)} old`;
}

export function cacheNotClearedWarning(reason: string): string {
  return `the cached answers of this service could not be removed after the write (${reason}); until they expire, --cache may show what it changed: run petctl cache clear`;
}

/** A folder not the user's own is named, unless it is `at`. */
export function cacheUnusableWarning(at: string, error: Error): string {
  const reason = error instanceof UnsafeFileError ? describeProblem(error.problem, error.file === at ? 'it' : error.file) : error.message;
  return `not using the response cache at ${at}: ${reason}`;
}

export function cacheClearedLine(count: number, dir: string): string {
  if (count === 0) return `No cached answers in ${dir}.`;
  return `Removed ${plural(count, 'cached answer')} from ${dir}.`;
}
