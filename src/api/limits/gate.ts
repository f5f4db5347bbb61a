import { type Claim, type GateDecision, MAX_PROBE_LEASE_MS, type RateAnswer, decide, observe } from '../waits';
import type { LimitEntry } from './entry';
import type { LimitStore } from './store';

/** A key's record asked and told through its store, each step one atomic update: no two processes spend one request. */
export interface RateLimitGate {
  /** Whether one more request may go now (claiming its slot), or until when to wait; `reserve`: slots of the window left to others. */
  acquire(reserve?: number): Promise<GateDecision>;
  /** Records what an answer said about the limits. */
  record(answer: RateAnswer): Promise<void>;
  /** The record for this base URL and key, as last written by any process. */
  current(): Promise<LimitEntry | undefined>;
}

export interface GateOptions {
  now: () => number;
  /** How long other requests wait for a probe's answer at most (its request timeout; capped in waits.ts). */
  probeLeaseMs?: number;
  /** Every request probes, one in flight on this machine: the shared store fell back to this machine's file (redis-store.ts). */
  solo?: () => boolean;
  /** A second store that learns every answer too (the state file beside Redis, so this machine knows what it last heard). */
  mirror?: () => LimitStore | undefined;
}

export function openGate(store: LimitStore, options: GateOptions): RateLimitGate {
  const { now, probeLeaseMs = MAX_PROBE_LEASE_MS } = options;
  return {
    acquire(reserve = 0) {
      const claim: Claim = { reserve, solo: options.solo?.() ?? false, probeLeaseMs };
      return store.update((entry) => {
        const decision = decide(entry, now(), claim);
        return { entry: decision.go ? decision.entry : undefined, result: decision };
      }, 'acquire');
    },
    async record(answer) {
      const learn = (entry: LimitEntry | undefined) => ({ entry: observe(entry, answer, now()), result: undefined });
      await store.update(learn, 'record');
      await options.mirror?.()?.update(learn);
    },
    current: () => store.read(),
  };
}
