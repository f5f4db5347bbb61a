import { codeFor } from '../api/waits';
import { type PetctlError, type WaitKind, type WaitNotice, type WaitStop, type WaitWords, restated } from '../errors';
import { formatDuration, formatUntil, formatWait, formatWhen } from './time';

/** Every sentence about a wait or a stop: the HTTP core and bulk import say what happened, this says it. Why a request
 * is held starts notices and errors (a ban's end is said by the sentence around it). */
const WAIT_WORDS: Record<WaitKind, string> = {
  ban: 'the API key is banned',
  retry_after: 'rate limited (HTTP 429, Retry-After)',
  day_quota: 'the daily quota is used up',
  minute_window: 'rate limit reached',
  backoff: 'rate limited (HTTP 429)',
  probe: 'waiting for the rate-limit window',
};

/** Under a minute, seconds to the tenth (`0.4s`, `2s`, `16.7s`) rounded by `round`; a minute or more as `longer` says. */
function tenths(ms: number, round: (x: number) => number, longer: (ms: number) => string): string {
  return ms >= 60_000 ? longer(ms) : `${Number((round(Math.max(0, ms) / 100) / 10).toFixed(1))}s`;
}

/** A retry's wait, never understated; a minute or more as formatWait. */
export const formatRetryWait = (ms: number): string => tenths(ms, Math.ceil, formatWait);

const formatElapsed = (ms: number): string => tenths(ms, Math.round, formatDuration);

export function waitNotice(notice: WaitNotice): string {
  const { kind, ms, at } = notice;
  if (notice.what === 'retry') {
    const why = kind === 'ban' ? WAIT_WORDS[kind] : notice.reason;
    return `retry ${notice.retry}/${notice.retries} in ${formatRetryWait(ms)}: ${why}`;
  }
  if (kind === 'minute_window') return `rate limit reached; waiting ${formatWait(ms)} for the window to reopen`;
  if (kind === 'probe') return WAIT_WORDS[kind];
  return `${WAIT_WORDS[kind]}; waiting ${formatWait(ms)}, until ${formatUntil(notice.until, at)}`;
}

/** Not for a ban or the day's quota, which no longer wait would end. */
function maxWaitHint(code: string | undefined): string | undefined {
  return code === 'key_banned' || code === 'quota_exhausted' ? undefined : 'raise --max-wait to wait longer';
}

function stopReason(stop: WaitStop): string {
  return stop.by === 'gate' || stop.kind === 'ban' ? WAIT_WORDS[stop.kind] : 'rate limited';
}

/** Counted from `now`: the stop's own moment unless a command ends later. */
function tryAgain(stop: WaitStop, now = stop.at): string {
  return stop.until === undefined ? 'later' : formatWhen(stop.until, now);
}

/** A single request's stop: held before the wire (nothing sent), or a 429 it will not wait out. */
export function requestStop(stop: WaitStop): { message: string; hint?: string } {
  const reason = stopReason(stop);
  const spent = stop.attempts === undefined ? '' : ` (${attemptsSpent(stop.attempts.count, stop.attempts.elapsedMs).slice(2)})`;
  if (stop.kind === 'ban' && stop.until !== undefined) {
    // Each fact once: until when, how long that is, and that nothing goes out meanwhile.
    return { message: `${reason} until ${formatUntil(stop.until, stop.at)} (in ${formatWait(stop.until - stop.at)}); petctl sends nothing before then${spent}` };
  }
  if (stop.by === 'gate') {
    return { message: `${reason}; nothing sent. Try again ${tryAgain(stop)}`, hint: stop.noWait ? undefined : maxWaitHint(codeFor(stop.kind)) };
  }
  return {
    message: `${reason}: ${stop.serverMessage ?? 'too many requests'}${spent}. Try again ${tryAgain(stop)}`,
    hint: stop.kind === 'ban' ? undefined : 'raise --retries or --max-wait to wait longer',
  };
}

export function attemptsSpent(count: number, elapsedMs: number): string {
  return `, ${count} attempts over ${formatElapsed(elapsedMs)}`;
}

export const waitWords: WaitWords = { notice: waitNotice, stop: requestStop, attempts: attemptsSpent };

/** `1 row`, `1200 rows`: a count as it is (an import's rows and pages, cached answers). */
export function plural(n: number, noun: string, count: string | number = n): string {
  return `${count} ${noun}${n === 1 ? '' : 's'}`;
}

/** `1,200 animals`, whatever the machine's locale. */
export function formatCounted(n: number, noun: string): string {
  return plural(n, noun, n.toLocaleString('en-US'));
}

/** `error` in other words, with another hint: its class, code, status, body and a rate limit's facts kept. */
export function reworded(error: PetctlError, message: string, hint: string | undefined): PetctlError {
  return restated(error, message, { code: error.code, status: error.status, body: error.body, hint });
}

/** An import stopped by a rate limit: `now` is the import's end. */
export function importStop(stop: WaitStop, rows: { created: number; left: number; code: string; now: number }): { message: string; hint: string } {
  const waitLonger = maxWaitHint(rows.code);
  return {
    message: `the rate limit stopped the import: ${stopReason(stop)}; ${formatCounted(rows.created, 'row')} created, ${rows.left} left; resume ${tryAgain(stop, rows.now)}: rerun the same command`,
    hint: waitLonger ? `${waitLonger}; the journal keeps what was created` : 'the journal keeps what was created: the rerun sends only the rest',
  };
}

/** A paged listing stopped by a rate limit: the page not requested, never "nothing sent"; a 429 for the page as any request's. */
export function listingStop(stop: WaitStop, page: number): { message: string; hint?: string } {
  if (stop.by !== 'gate') return requestStop(stop);
  return { message: `${stopReason(stop)}; page ${page} not requested. Try again ${tryAgain(stop)}`, hint: stop.noWait ? undefined : maxWaitHint(codeFor(stop.kind)) };
}
