/** `at 14:32:05` (or `at 2026-11-26 14:32:05` on another day): when to try again, as petctl says it in local time. */
export const LOCAL_TIME = /at (?:(\d{4})-(\d\d)-(\d\d) )?(\d\d):(\d\d):(\d\d)/;

/** The moment the first local time in `text` names, to the second (epoch ms, the start of that second). */
export function namedTime(text: string, today = new Date()): number {
  const match = LOCAL_TIME.exec(text);
  if (!match) throw new Error(`no local time in: ${text}`);
  const [, year, month, day, hours, minutes, seconds] = match;
  const date = new Date(today.getTime());
  if (year !== undefined) date.setFullYear(Number(year), Number(month) - 1, Number(day));
  date.setHours(Number(hours), Number(minutes), Number(seconds), 0);
  return date.getTime();
}
