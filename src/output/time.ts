/** Durations and moments for people: moments in the local time zone, to the second. */

const pad = (n: number) => String(n).padStart(2, '0');

/** A span for progress and summaries: `4.5s`, `42s`, `1m45s`, `2h05m`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)}s`;
  const whole = Math.round(seconds);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  return hours > 0 ? `${hours}h${pad(minutes)}m` : `${minutes}m${pad(whole % 60)}s`;
}

/** A wait, rounded up to the whole second so it is never understated: `3s`, `61s`, `5m00s`, `2h05m`. */
export function formatWait(ms: number): string {
  const seconds = Math.ceil(Math.max(0, ms) / 1000);
  if (seconds < 120) return `${seconds}s`;
  return formatDuration(seconds * 1000);
}

export function formatLocalDate(epochMs: number): string {
  const d = new Date(epochMs);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** `14:32:05` when `epochMs` falls on the same local day as `now`, else `2026-11-26 14:32:05`. */
export function formatLocalTime(epochMs: number, now: number): string {
  const d = new Date(epochMs);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return formatLocalDate(epochMs) === formatLocalDate(now) ? time : `${formatLocalDate(epochMs)} ${time}`;
}

/** Always with the date (status displays, records). */
export function formatLocalDateTime(epochMs: number): string {
  return formatLocalTime(epochMs, Number.NaN);
}

/** When something was done, to the minute (an earlier import). */
export function formatLocalMinute(epochMs: number): string {
  return formatLocalDateTime(epochMs).slice(0, 16);
}

/** A moment to wait for, rounded up to its second as the JSON error's retryAt is: who starts then is never early. */
export function formatUntil(epochMs: number, now: number): string {
  return formatLocalTime(Math.ceil(epochMs / 1000) * 1000, now);
}

/** When something may happen again: `at 14:32:05, in 61s`. */
export function formatWhen(epochMs: number, now: number): string {
  return `at ${formatUntil(epochMs, now)}, in ${formatWait(epochMs - now)}`;
}
