import { type Claim, type GateDecision, MAX_PROBE_LEASE_MS, RESET_JITTER_S, type RateAnswer, decide, giveBack, observe } from '../waits';
import type { LimitEntry } from './entry';
import type { LimitStore } from './store';

export interface GateOptions {
  now: () => number;
  /** How long other requests wait for a probe's answer at most (its request timeout; capped in waits.ts). */
  probeLeaseMs?: number;
  /** Redis (redis-store.ts): once it fell back every request probes, one in flight here; until then the state file learns each answer too. */
  shared?: { readonly fellBack: boolean; mirror(): LimitStore | undefined };
}

export type RateLimitGate = ReturnType<typeof openGate>;

/** A key's record asked and told through its store, each step one atomic update: no two processes spend one request. */
export function openGate(store: LimitStore, options: GateOptions) {
  const { now, probeLeaseMs = MAX_PROBE_LEASE_MS } = options;
  /** The slots of a block claimed and not sent yet: this process's, without asking the store. */
  let pool: { reset: number; resetAt: number; left: number } | undefined;
  /** Requests let go this second and the one before: a block is sized to them, so a fast run asks the store about once a second. */
  let pace = { second: 0, now: 0, before: 0 };
  /** The lease of this process's probe while its answer is awaited: a probe that gets none gives it up (abandon). */
  let lease: number | undefined;
  return {
    /** `reserve`: slots of the window left to others. */
    async acquire(reserve = 0): Promise<GateDecision> {
      let decision: GateDecision = { go: true };
      // A slot of this process's block; also after the store found the window empty: a claim side by side may just have taken its last slots.
      const fromPool = () => pool !== undefined && pool.left > 0 && now() < pool.resetAt && (pool.left -= 1) >= 0;
      if (!fromPool()) {
        const claim: Claim = { reserve, solo: options.shared?.fellBack ?? false, probeLeaseMs, block: Math.max(1, pace.now, pace.before) };
        let probeUntil: number | undefined;
        decision = await store.update((entry) => {
          const decided = decide(entry, now(), claim);
          const started = decided.go ? decided.entry?.probeUntil : undefined;
          probeUntil = started !== entry?.probeUntil ? started : undefined;
          return { entry: decided.go ? decided.entry : undefined, result: decided };
        }, 'acquire');
        if (probeUntil !== undefined) lease = probeUntil;
        if (decision.go && decision.slots !== undefined && decision.entry?.window) {
          // Blocks claimed side by side add up, in one window (its Reset may come a second or two apart: waits.ts RESET_JITTER_S).
          const { reset, resetAt } = decision.entry.window;
          const kept = pool && Math.abs(reset - pool.reset) <= RESET_JITTER_S && now() < pool.resetAt ? pool.left : 0;
          pool = { reset, resetAt, left: decision.slots - 1 + kept };
        } else if (!decision.go && decision.reason === 'window' && fromPool()) decision = { go: true };
      }
      if (decision.go) {
        const second = Math.floor(now() / 1000);
        if (second !== pace.second) pace = { second, now: 0, before: second === pace.second + 1 ? pace.now : 0 };
        pace.now += 1;
      }
      return decision;
    },
    /** At the end of a run: the slots claimed and not sent go back to the record, while their window lasts. */
    async release() {
      const held = pool;
      pool = undefined;
      if (held?.left) await store.update((entry) => ({ entry: giveBack(entry, held.reset, held.left, now()), result: undefined }), 'release');
    },
    async record(answer: RateAnswer) {
      // The service refused: the slots still held are not its count any more.
      if (answer.status === 429) pool = undefined;
      lease = undefined;
      const learn = (entry: LimitEntry | undefined) => ({ entry: observe(entry, answer, now()), result: undefined });
      await store.update(learn, 'record');
      await options.shared?.mirror()?.update(learn);
    },
    /** A request that got no answer (a network failure): were it the probe, the others need not wait out its lease. */
    async abandon() {
      const mine = lease;
      lease = undefined;
      if (mine === undefined) return;
      const drop = (entry: LimitEntry | undefined) => {
        const { probeUntil, ...rest } = entry ?? {};
        return { entry: probeUntil === mine ? rest : undefined, result: undefined };
      };
      await store.update(drop, 'abandon');
    },
    current: () => store.read(),
  };
}
