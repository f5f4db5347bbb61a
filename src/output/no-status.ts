/**
 * Animals created without a status are listed by `pets list` alone: every
 * `--status` filter leaves them out. Said once, after a single add or an
 * import, with how many there are.
 */
export function noStatusLine(count: number): string {
  const subject = count === 1 ? '1 animal has no status: it appears' : `${count} animals have no status: they appear`;
  return `${subject} in no pets list --status available|pending|sold, only in pets list without --status`;
}
