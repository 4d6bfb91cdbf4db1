// Reference statistics (moved out of src/core/stats: only tests use them). See index.ts.
import { normalSf } from "./special.js";

/** Asymptotic McNemar χ² (reference only); `null` when m = 0. */
export function mcnemarChi2(b: number, c: number, continuity = false): { statistic: number; p: number } | null {
  const m = b + c;
  if (m === 0) return null;
  const diff = continuity ? Math.abs(b - c) - 1 : b - c;
  const statistic = (diff * diff) / m;
  // χ²₁ survival = 2·(1 − Φ(√x)).
  return { statistic, p: 2 * normalSf(Math.sqrt(statistic)) };
}
