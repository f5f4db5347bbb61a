/** The machine's time read once, then moved on by the monotonic clock: a step of the machine's clock moves no wait and no stored time. */
export function steadyClock(wallNow: () => number, monotonic: () => number): () => number {
  const wallAtStart = wallNow();
  const monotonicAtStart = monotonic();
  // Whole milliseconds, as Date.now() reads: stored times and traces stay integers.
  return () => wallAtStart + Math.floor(monotonic() - monotonicAtStart);
}
