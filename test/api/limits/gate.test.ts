import { describe, expect, it } from 'vitest';
import { memoryGate } from '../../helpers/fake-core';

/** The gate's block of slots (limits/gate.ts): claimed from the record at once, sent one request at a time. */

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);
const DAY_RESET_S = NOW / 1000 + 24 * 60 * 60;
const dayAnswer = (remaining: number) => ({ status: 201, limit: 1000, remaining, reset: DAY_RESET_S, resetAt: DAY_RESET_S * 1000 });

describe('a block claimed side by side', () => {
  it('a request refused an empty window takes a slot the claim beside it just put in the pool: 6 left means 6 sent, never a stop after 5', async () => {
    const gate = memoryGate(() => NOW);
    await gate.record(dayAnswer(6));
    const sent: boolean[] = [];
    // Blocks of 1, 1, 2 (one of them pooled, taken by the fourth): the pace is now 4 a second.
    for (let i = 0; i < 4; i++) sent.push((await gate.acquire()).go);
    expect(gate.entry()?.window?.remaining).toBe(2);
    // Two requests ask the store at once: the first claims the last 2 slots, the second finds the window empty.
    const side = await Promise.all([gate.acquire(), gate.acquire()]);
    sent.push(...side.map((decision) => decision.go));
    expect(sent).toEqual([true, true, true, true, true, true]);
    expect(gate.entry()?.window?.remaining).toBe(0);
    // The seventh is refused until the day's reset: the six were all there was.
    expect(await gate.acquire()).toEqual({ go: false, until: DAY_RESET_S * 1000, reason: 'window' });
  });
});
