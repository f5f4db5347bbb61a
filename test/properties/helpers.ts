/** Runs per property, fixed so CI time is predictable; FC_RUNS_SCALE (e.g. 10) multiplies them for a longer hunt. */
const SCALE = Number(process.env.FC_RUNS_SCALE) || 1;
export const RUNS = {
  pure: 1000 * SCALE,
  inProcess: 300 * SCALE,
} as const;
