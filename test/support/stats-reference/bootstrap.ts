// Reference statistics (moved out of src/core/stats: only tests use them). See index.ts.
import { mulberry32 } from "../../../src/core/stats/bootstrap.js";
import type { Interval } from "../../../src/core/stats/intervals.js";

/** Smallest sorted value whose empirical CDF is ≥ p. */
export function invertedCdfQuantile(sorted: readonly number[], p: number): number {
  const n = sorted.length;
  const idx = Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1));
  return sorted[idx]!;
}

/**
 * Percentile bootstrap of the mean of per-task values (dₜ = y₊ₜ − y₋ₜ for one run, p̂₊ₜ − p̂₋ₜ for k runs).
 * Degenerate (a point) when every value is equal, e.g. no discordant pairs; null for no tasks.
 */
export function pairedBootstrap(values: readonly number[], options: { B?: number; seed?: number; alpha?: number } = {}): { interval: Interval; sd: number } | null {
  const n = values.length;
  if (n === 0) return null;
  const B = options.B ?? 10000;
  const alpha = options.alpha ?? 0.05;
  const rand = mulberry32(options.seed ?? 20260901);
  const means = new Float64Array(B);
  for (let b = 0; b < B; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[Math.floor(rand() * n)]!;
    means[b] = s / n;
  }
  const sorted = Array.from(means).sort((x, y) => x - y);
  let mean = 0;
  for (const m of sorted) mean += m;
  mean /= B;
  let ss = 0;
  for (const m of sorted) ss += (m - mean) * (m - mean);
  return { interval: [invertedCdfQuantile(sorted, alpha / 2), invertedCdfQuantile(sorted, 1 - alpha / 2)], sd: Math.sqrt(ss / (B - 1)) };
}
