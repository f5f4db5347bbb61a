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
  return (ms) => {
    let timer: NodeJS.Timeout | undefined;
    const slept = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    return untilAborted(slept, signal, () => new InterruptedError()).finally(() => clearTimeout(timer));
  };
}

/** `promise`, or the `error` made as soon as `signal` aborts (at once when it has), whichever comes first. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, error: () => Error): Promise<T> {
  let onAbort = () => {};
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(error());
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}
