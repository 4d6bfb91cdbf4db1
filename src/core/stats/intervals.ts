/**
 * Confidence intervals for θ = acc₊ − acc₋ on one paired table (docs/stats-spec.md §4), plus Wilson for one
 * proportion. All intervals are [lower, upper], clipped to [−1, 1]; `null` when n = 0 (undefined, never 0).
 * Tango is the default (needs only b, c, n, and "excludes 0" agrees with McNemar's z); the rest are reference.
 */
import { bisect, binomPmf as binom, normalQuantile } from "./special.js";
import type { PairedCounts } from "./paired.js";

export type Interval = [number, number];

const clip = (x: number): number => Math.min(1, Math.max(-1, x));
const zOf = (alpha: number): number => normalQuantile(1 - alpha / 2);

/** Wilson score interval for x successes out of n (statsmodels `proportion_confint(method='wilson')`). */
export function wilson(x: number, n: number, alpha = 0.05): Interval | null {
  if (n === 0) return null;
  const z = zOf(alpha);
  const z2 = z * z;
  const centre = (x + z2 / 2) / (n + z2);
  const half = (z * Math.sqrt((x * (n - x)) / n + z2 / 4)) / (n + z2);
  return [centre - half, centre + half];
}

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

/** Newcombe's continuity-corrected correlation φ* (method 10); plain φ when `corrected` is false (method 8). */
export function newcombePhi(t: PairedCounts, corrected = true): number {
  const n = t.a + t.b + t.c + t.d;
  const A = t.a * t.d - t.b * t.c;
  const D = (t.a + t.b) * (t.c + t.d) * (t.a + t.c) * (t.b + t.d);
  if (D === 0) return 0;
  if (!corrected) return A / Math.sqrt(D);
  if (A > n / 2) return (A - n / 2) / Math.sqrt(D);
  if (A >= 0) return 0;
  return A / Math.sqrt(D);
}

/** Newcombe square-and-add interval: method 10 (φ*, default) or method 8 (plain φ). Needs a and d too. */
export function newcombeInterval(t: PairedCounts, alpha = 0.05, method: 10 | 8 = 10): Interval | null {
  const n = t.a + t.b + t.c + t.d;
  if (n === 0) return null;
  const p1 = (t.a + t.b) / n;
  const p2 = (t.a + t.c) / n;
  const [l1, u1] = wilson(t.a + t.b, n, alpha)!;
  const [l2, u2] = wilson(t.a + t.c, n, alpha)!;
  const phi = newcombePhi(t, method === 10);
  const theta = (t.b - t.c) / n;
  const dl1 = p1 - l1,
    du2 = u2 - p2,
    dl2 = p2 - l2,
    du1 = u1 - p1;
  const lower = theta - Math.sqrt(Math.max(0, dl1 * dl1 + du2 * du2 - 2 * phi * dl1 * du2));
  const upper = theta + Math.sqrt(Math.max(0, dl2 * dl2 + du1 * du1 - 2 * phi * dl2 * du1));
  return [clip(lower), clip(upper)];
}

/** Tango's score statistic T(δ); decreasing in δ, T(0) is McNemar's z. */
export function tangoStatistic(b: number, c: number, n: number, delta: number): number {
  const A = 2 * n;
  const B = -b - c + (2 * n - b + c) * delta;
  const C = -c * delta * (1 - delta);
  const p21 = (Math.sqrt(Math.max(0, B * B - 4 * A * C)) - B) / (2 * A);
  const variance = n * (2 * p21 + delta * (1 - delta));
  const num = b - c - n * delta;
  if (!(variance > 0)) return num > 0 ? Infinity : num < 0 ? -Infinity : 0;
  return num / Math.sqrt(variance);
}

/** Tango (1998) score interval for θ, by bisection to machine precision. */
export function tangoInterval(b: number, c: number, n: number, alpha = 0.05): Interval | null {
  if (n === 0) return null;
  const z = zOf(alpha);
  const theta = (b - c) / n;
  const lower = theta <= -1 ? -1 : bisect((d) => tangoStatistic(b, c, n, d) - z, -1, theta);
  const upper = theta >= 1 ? 1 : bisect((d) => tangoStatistic(b, c, n, d) + z, theta, 1);
  return [clip(lower), clip(upper)];
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

