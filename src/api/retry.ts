/** A 429 that names no usable time holds everything on the key at least this long. */
export const HOLD_MIN_MS = 5_000;
/** Holds double while the probe after each meets a 429, up to this (the specification's short window is a minute). */
export const HOLD_CAP_MS = 60_000;

/**
 * The hold after a 429 without a usable time: the larger of HOLD_MIN_MS and
 * what is left of the current window when one is known; after a hold whose
 * probe met a 429 again (`previousHoldMs`), twice that one, up to HOLD_CAP_MS.
 * Never random: jitter would release the waiting requests one by one into a
 * limit that is still closed.
 */
export function holdAfterTimeless429(previousHoldMs: number | undefined, windowLeftMs: number | undefined): number {
  const start = Math.max(HOLD_MIN_MS, windowLeftMs ?? 0);
  return previousHoldMs === undefined ? start : Math.max(start, Math.min(HOLD_CAP_MS, previousHoldMs * 2));
}
