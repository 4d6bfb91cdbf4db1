/**
 * Confidence intervals for θ = acc₊ − acc₋ on one paired table (docs/stats-spec.md §4), plus Wilson for one
 * proportion. All intervals are [lower, upper], clipped to [−1, 1]; `null` when n = 0 (undefined, never 0).
 * Tango is the default (needs only b, c, n, and "excludes 0" agrees with McNemar's z); the rest are reference.
 */
import { bisect, normalQuantile } from "./special.js";
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

