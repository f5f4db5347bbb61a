import { UnsafeFileError, describeProblem } from '../errors';
import { formatDuration } from './time';
import { plural } from './waits';

/** What petctl says of its response cache (--cache, petctl cache clear). */

/** The line on stderr for an answer served from the cache, its age to the whole second below a minute: `0s`, `12s`, `1m05s`. */
export function fromCacheLine(ageMs: number): string {
  return `from cache, ${ageMs < 60_000 ? `${Math.floor(ageMs / 1000)}s` : formatDuration(ageMs)} old`;
}

/** A write went through but the target's cached answers could not be removed: a --cache may serve what it changed. */
export function cacheNotClearedWarning(reason: string): string {
  return `the cached answers of this service could not be removed after the write (${reason}); until they expire, --cache may show what it changed: run petctl cache clear`;
}

/** The cache at `at` was not used: a folder of it is not the user's own (named, unless it is `at`), or the system's words. */
export function cacheUnusableWarning(at: string, error: Error): string {
  const reason = error instanceof UnsafeFileError ? describeProblem(error.problem, error.file === at ? 'it' : error.file) : error.message;
  return `not using the response cache at ${at}: ${reason}`;
}

export function cacheClearedLine(count: number, dir: string): string {
  if (count === 0) return `No cached answers in ${dir}.`;
  return `Removed ${plural(count, 'cached answer')} from ${dir}.`;
}
