/**
 * Repeated samples per task (docs/stats-spec.md §5). The unit is the task: per-task pass rates, dₜ = p̂₊ₜ − p̂₋ₜ,
 * and a paired t interval over tasks. Never McNemar on the k·T run-level pairs (runs within a task correlate).
 */
import { normalQuantile, tCdf, tQuantile } from "./special.js";
import type { Interval } from "./intervals.js";

export interface RepeatedSummary {
  T: number;
  pPlus: number[];
  pMinus: number[];
  delta: number[];
  deltaHat: number | null;
  /** sd of dₜ (n − 1 denominator); null for T < 2. */
  sd: number | null;
  /** sd/√T — the default SE (equals scipy ttest_rel). */
  se: number | null;
  tStatistic: number | null;
  /** Two-sided paired-t p-value; null when SE is undefined or 0. */
  p: number | null;
  tCrit: number | null;
  /** Δ̂ ± t·SE clipped to [−1, 1]; degenerate [Δ̂, Δ̂] when every dₜ is equal. */
  ci: Interval | null;
  ciNormal: Interval | null;
  /** Cluster-robust CR0 SE = √Σ(dₜ − Δ̂)²/T (statsmodels cluster, use_correction=False). */
  cr0: number | null;
  /** statsmodels' default small-sample correction √(G/(G−1)·(N−1)/(N−K)), N = run-level rows, K = 2. */
  cr0Corrected: number | null;
  /** OLS SE ignoring clusters (wrong; shown only to explain why clustering matters). */
  naiveIidSe: number | null;
  degenerate: boolean;
}

const clip = (x: number): number => Math.min(1, Math.max(-1, x));
const at = (k: number | readonly number[], i: number): number => (typeof k === "number" ? k : k[i]!);

/** Task-level paired analysis of repeated samples: sPlus/sMinus successes out of kPlus/kMinus runs per task. */
export function repeatedSamples(
  sPlus: readonly number[],
  kPlus: number | readonly number[],
  sMinus: readonly number[],
  kMinus: number | readonly number[],
  alpha = 0.05,
): RepeatedSummary {
  const T = sPlus.length;
  const pPlus = sPlus.map((s, i) => s / at(kPlus, i));
  const pMinus = sMinus.map((s, i) => s / at(kMinus, i));
  // From the integer counts in one rounding, so tasks with equal effects get bit-identical dₜ (degenerate SE = 0).
  const delta = sPlus.map((s, i) => (s * at(kMinus, i) - sMinus[i]! * at(kPlus, i)) / (at(kPlus, i) * at(kMinus, i)));
  const empty: RepeatedSummary = {
    T, pPlus, pMinus, delta, deltaHat: null, sd: null, se: null, tStatistic: null, p: null, tCrit: null,
    ci: null, ciNormal: null, cr0: null, cr0Corrected: null, naiveIidSe: null, degenerate: false,
  };
  if (T === 0) return empty;
  const deltaHat = delta.reduce((s, d) => s + d, 0) / T;
  if (T < 2) return { ...empty, deltaHat };
  const ss = delta.reduce((s, d) => s + (d - deltaHat) * (d - deltaHat), 0);
  const sd = Math.sqrt(ss / (T - 1));
  const se = sd / Math.sqrt(T);
  const cr0 = Math.sqrt(ss) / T;
  let yPlus = 0;
  let yMinus = 0;
  let nPlus = 0;
  let nMinus = 0;
  for (let i = 0; i < T; i++) {
    nPlus += at(kPlus, i);
    nMinus += at(kMinus, i);
    yPlus += sPlus[i]!;
    yMinus += sMinus[i]!;
  }
  const N = nPlus + nMinus;
  const cr0Corrected = cr0 * Math.sqrt((T / (T - 1)) * ((N - 1) / (N - 2)));
  const mPlus = yPlus / nPlus;
  const mMinus = yMinus / nMinus;
  // Binary rows: the residual sum of squares of y ~ 1 + enabled is Σ_arm n·p̄(1 − p̄).
  const rss = nPlus * mPlus * (1 - mPlus) + nMinus * mMinus * (1 - mMinus);
  const naiveIidSe = Math.sqrt((rss / (N - 2)) * (1 / nPlus + 1 / nMinus));
  const tCrit = tQuantile(1 - alpha / 2, T - 1);
  const z = normalQuantile(1 - alpha / 2);
  const degenerate = se === 0;
  const tStatistic = degenerate ? null : deltaHat / se;
  const p = tStatistic === null ? null : 2 * tCdf(-Math.abs(tStatistic), T - 1);
  return {
    T, pPlus, pMinus, delta, deltaHat, sd, se, tStatistic, p, tCrit,
    ci: [clip(deltaHat - tCrit * se), clip(deltaHat + tCrit * se)],
    ciNormal: [clip(deltaHat - z * se), clip(deltaHat + z * se)],
    cr0, cr0Corrected, naiveIidSe, degenerate,
  };
}

/**
 * A/A noise floor from k ≥ 2 disabled runs per task: qₜ = 2·s(k − s)/(k(k − 1)) is the unbiased probability that
 * two independent disabled runs disagree; the floor is mean(qₜ). Under "no effect" E[(b + c)/n] equals it.
 */
export function aaNoiseFloor(sMinus: readonly number[], k: number | readonly number[]): { perTask: number[]; floor: number | null } {
  const perTask = sMinus.map((s, i) => {
    const kk = at(k, i);
    return kk < 2 ? NaN : (2 * s * (kk - s)) / (kk * (kk - 1));
  });
  const usable = perTask.filter((q) => !Number.isNaN(q));
  return { perTask, floor: usable.length === 0 ? null : usable.reduce((s, q) => s + q, 0) / usable.length };
}
