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
  /** Redis (redis-store.ts): once it fell back every request probes, one in flight here; until then the state file learns each answer too. */
  shared?: { readonly fellBack: boolean; mirror(): LimitStore | undefined };
}

export function openGate(store: LimitStore, options: GateOptions): RateLimitGate {
  const { now, probeLeaseMs = MAX_PROBE_LEASE_MS } = options;
  return {
    acquire(reserve = 0) {
      const claim: Claim = { reserve, solo: options.shared?.fellBack ?? false, probeLeaseMs };
      return store.update((entry) => {
        const decision = decide(entry, now(), claim);
        return { entry: decision.go ? decision.entry : undefined, result: decision };
      }, 'acquire');
    },
    async record(answer) {
      const learn = (entry: LimitEntry | undefined) => ({ entry: observe(entry, answer, now()), result: undefined });
      await store.update(learn, 'record');
      await options.shared?.mirror()?.update(learn);
    },
    current: () => store.read(),
  };
}
