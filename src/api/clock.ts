import { InterruptedError } from '../errors';

/** The machine's time read once, then moved on by the monotonic clock: a step of the machine's clock moves no wait and no stored time. */
export function steadyClock(wallNow: () => number, monotonic: () => number): () => number {
  const wallAtStart = wallNow();
  const monotonicAtStart = monotonic();
  // Whole milliseconds, as Date.now() reads: stored times and traces stay integers.
  return () => wallAtStart + Math.floor(monotonic() - monotonicAtStart);
}

/** Milliseconds from a clock that never steps. process.hrtime rather than performance.now(): the `performance` global loads perf_hooks (its cost: docs/performance.md). */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Rejects with InterruptedError when `signal` aborts (Ctrl-C, SIGTERM). */
export function interruptibleSleep(signal: AbortSignal): (ms: number) => Promise<void> {
  return (ms) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new InterruptedError());
      const onAbort = () => {
        clearTimeout(timer);
        reject(new InterruptedError());
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
}
