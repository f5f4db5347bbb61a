import { type GateDecision, type RateAnswer, decide, observe } from './rules';
import type { LimitEntry } from './entry';
import type { LimitStore } from './store';

/**
 * This process's hold over a key's record: the one read–decide–write step,
 * whichever store keeps the record. Each step is one atomic update of the
 * store, so no two processes spend the same remaining request.
 */

export interface RateLimitGate {
  /**
   * Whether one more request may go now (taking one from the shared budget when one is tracked), or until when to wait.
   * `reserve`: for a paced request, how many of the window's requests to leave to others (see rules.decide).
   */
  acquire(paced: boolean, reserve?: number): Promise<GateDecision>;
  /** Records what an answer said about the limits. */
  record(answer: RateAnswer, paced: boolean): Promise<void>;
  /** The record for this base URL and key, as last written by any process. */
  current(): Promise<LimitEntry | undefined>;
}

/**
 * A paced request that never answers (its process was killed) holds up the
 * others no longer than this. Short: should a slow answer outlive it, one more
 * probe goes out at the start of a window, when the budget is full anyway.
 */
export const MAX_PROBE_LEASE_MS = 1_000;

export interface GateOptions {
  now: () => number;
  /** How long other paced requests wait for a probe's answer at most (its request timeout; capped at MAX_PROBE_LEASE_MS). */
  probeLeaseMs?: number;
  /**
   * A second store that learns every answer as a single command records it
   * (a 429, a ban, the window), while it is not already the one in use: the
   * state file beside Redis, so this machine knows what it last heard.
   */
  mirror?: () => LimitStore | undefined;
}

export function openGate(store: LimitStore, options: GateOptions): RateLimitGate {
  const { now } = options;
  const probeLeaseMs = Math.min(options.probeLeaseMs ?? MAX_PROBE_LEASE_MS, MAX_PROBE_LEASE_MS);
  return {
    acquire(paced, reserve) {
      return store.update((entry) => {
        const decision = decide(entry, now(), paced, probeLeaseMs, reserve);
        return { entry: decision.go ? decision.entry : undefined, result: decision };
      }, 'acquire');
    },
    async record(answer, paced) {
      await store.update((entry) => ({ entry: observe(entry, answer, now(), paced), result: undefined }), 'record');
      await options.mirror?.()?.update((entry) => ({ entry: observe(entry, answer, now(), false), result: undefined }));
    },
    current: () => store.read(),
  };
}
