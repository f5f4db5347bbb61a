import { expect, it } from 'vitest';
import { type ImportFacts, importEnding } from '../../src/bulk/outcome';
import { InterruptedError, NetworkError, StateUnwritableError, NotConfiguredError, RateLimitError } from '../../src/errors';
import { JournalUnwritableError } from '../../src/bulk/journal';
import { endingError } from '../../src/output/import-end';

/** How an import ends: one row per mix of what happened, the ending chosen and its exit code, and the error said for it. */

const banned = new RateLimitError('banned', { code: 'key_banned', status: 429, stop: { by: 'answer', kind: 'ban', at: Date.now() } });
const journalFull = new JournalUnwritableError('j', 'no space left on the device (ENOSPC)', undefined);
const stateFull = new StateUnwritableError('s', 'no space', undefined);
const refused = new NetworkError('connection refused', { sent: false, retryable: false });
const noKey = new NotConfiguredError('no API key');
const clean = { interrupted: false, rejected: 0, invalid: 0, unknown: 0, ambiguous: 0 };

const cases: Array<[string, ImportFacts, ReturnType<typeof importEnding>['kind'], number]> = [
  ['every row created', clean, 'done', 0],
  ['a row rejected', { ...clean, rejected: 1 }, 'rejected', 6],
  ['a row invalid', { ...clean, invalid: 2 }, 'rejected', 6],
  ['a row unknown beats rejected and invalid', { ...clean, rejected: 1, invalid: 1, unknown: 1 }, 'unknown', 7],
  ['a row more than one animal could be (--retry-unknown)', { ...clean, ambiguous: 1 }, 'ambiguous', 6],
  ['an ambiguous row beats rejected ones, at the same exit', { ...clean, ambiguous: 2, rejected: 1 }, 'ambiguous', 6],
  ['a row unknown beats an ambiguous one', { ...clean, ambiguous: 1, unknown: 1 }, 'unknown', 7],
  ['an error that stopped it keeps its code, over unknown rows', { ...clean, unknown: 3, stoppedBy: noKey }, 'stopped', 4],
  ['a refused connection', { ...clean, stoppedBy: refused }, 'stopped', 7],
  ['the journal could not be written', { ...clean, unknown: 1, stoppedBy: journalFull }, 'unwritable', 1],
  ['the state file could not be written', { ...clean, stoppedBy: stateFull }, 'unwritable', 1],
  ['the rate limit stopped it, over rows rejected and unknown', { ...clean, rejected: 1, unknown: 1, stoppedBy: banned }, 'rate_limited', 5],
  ['Ctrl-C beats the rate limit', { ...clean, interrupted: true, stoppedBy: banned }, 'interrupted', 130],
  ['an interrupted request that stopped it is Ctrl-C', { ...clean, stoppedBy: new InterruptedError() }, 'interrupted', 130],
  ['Ctrl-C with rows rejected', { ...clean, interrupted: true, rejected: 4 }, 'interrupted', 130],
];

it.each(cases)('importEnding: %s → %s, exit %i', (_name, facts, kind, exitCode) => {
  const ending = importEnding(facts);
  expect(ending.kind).toBe(kind);
  // The exit code is the error's said for it.
  const counts = { created: 5, rejected: facts.rejected, invalid: facts.invalid, unknown: facts.unknown, ambiguous: facts.ambiguous, left: 7 };
  expect(endingError(ending, counts, Date.now(), 'https://api.example.org/v1')?.exitCode ?? 0).toBe(exitCode);
});
