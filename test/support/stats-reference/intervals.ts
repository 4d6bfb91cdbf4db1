// Reference statistics (moved out of src/core/stats: only tests use them). See index.ts.
import { binomPmf as binom, normalQuantile } from "../../../src/core/stats/special.js";
import type { Interval } from "../../../src/core/stats/intervals.js";

const clip = (x: number): number => Math.min(1, Math.max(-1, x));
const zOf = (alpha: number): number => normalQuantile(1 - alpha / 2);

/** Wald interval (reference; zero width at m = 0). */
export function waldInterval(b: number, c: number, n: number, alpha = 0.05): Interval | null {
  if (n === 0) return null;
  const z = zOf(alpha);
  const theta = (b - c) / n;
  const half = (z * Math.sqrt(Math.max(0, b + c - ((b - c) * (b - c)) / n))) / n;
  return [clip(theta - half), clip(theta + half)];
}

/** Agresti–Min (2005): Wald after adding ½ to every cell. */
export function agrestiMinInterval(b: number, c: number, n: number, alpha = 0.05): Interval | null {
  if (n === 0) return null;
  const z = zOf(alpha);
  const bt = b + 0.5;
  const ct = c + 0.5;
  const nt = n + 2;
  const theta = (bt - ct) / nt;
  const half = (z * Math.sqrt(Math.max(0, bt + ct - ((bt - ct) * (bt - ct)) / nt))) / nt;
  return [clip(theta - half), clip(theta + half)];
}

export interface ExactBootstrap {
  /** P(K = k) for K = B* − C*, keyed by k; θ* = k/n. */
  pmf: Map<number, number>;
  percentile: Interval;
  cdfAtLower: number;
  cdfAtUpper: number;
  sd: number;
}

/**
 * The paired percentile bootstrap of a single-run table, computed exactly (spec §4.6): M = B* + C* ~ Bin(n, m/n),
 * B* | M ~ Bin(M, b/m). Secondary only: degenerate ([0, 0]) when m = 0. Quantile = smallest k with CDF ≥ p.
 */
export function exactBootstrap(b: number, c: number, n: number, alpha = 0.05): ExactBootstrap | null {
  if (n === 0) return null;
  const m = b + c;
  const pmf = new Map<number, number>();
  if (m === 0) {
    pmf.set(0, 1);
    return { pmf, percentile: [0, 0], cdfAtLower: 1, cdfAtUpper: 1, sd: 0 };
  }
  for (let M = 0; M <= n; M++) {
    const pM = binom(M, n, m / n);
    if (pM === 0) continue;
    for (let B = 0; B <= M; B++) {
      const k = 2 * B - M;
      pmf.set(k, (pmf.get(k) ?? 0) + pM * binom(B, M, b / m));
    }
  }
  const keys = [...pmf.keys()].sort((x, y) => x - y);
  let cdf = 0;
  let lowerK: number | undefined;
  let upperK: number | undefined;
  let cdfLower = 0;
  let cdfUpper = 0;
  let mean = 0;
  let second = 0;
  for (const k of keys) {
    const p = pmf.get(k)!;
    cdf += p;
    mean += p * k;
    second += p * k * k;
    if (lowerK === undefined && cdf >= alpha / 2) {
      lowerK = k;
      cdfLower = cdf;
    }
    if (upperK === undefined && cdf >= 1 - alpha / 2) {
      upperK = k;
      cdfUpper = cdf;
    }
  }
  const sd = Math.sqrt(Math.max(0, second - mean * mean)) / n;
  return { pmf, percentile: [lowerK! / n, (upperK ?? keys[keys.length - 1]!) / n], cdfAtLower: cdfLower, cdfAtUpper: cdfUpper, sd };
}
