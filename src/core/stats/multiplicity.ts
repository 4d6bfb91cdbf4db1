/**
 * Multiple-testing adjustments across the per-skill tests of one report (docs/stats-spec.md §6). Adjusted
 * values come back in input order; ties keep input order (stable sort); an empty family gives [].
 * Holm flags skills (FWER under any dependence); BH ranks them (FDR); e-BH works on e-values from §7.
 */

export interface Adjusted {
  adjusted: number[];
  reject: boolean[];
}

function order(p: readonly number[]): number[] {
  return p.map((_, i) => i).sort((i, j) => p[i]! - p[j]! || i - j);
}

/** Holm step-down: adj₍ᵢ₎ = max_{j ≤ i} min(1, (K − j + 1)·p₍ⱼ₎). */
export function holm(p: readonly number[], alpha = 0.05): Adjusted {
  const K = p.length;
  const idx = order(p);
  const adjusted = new Array<number>(K);
  let running = 0;
  idx.forEach((orig, j) => {
    running = Math.max(running, Math.min(1, (K - j) * p[orig]!));
    adjusted[orig] = running;
  });
  return { adjusted, reject: adjusted.map((a) => a <= alpha) };
}

/** Benjamini–Hochberg step-up: adj₍ᵢ₎ = min_{j ≥ i} min(1, K·p₍ⱼ₎/j). */
export function benjaminiHochberg(p: readonly number[], alpha = 0.05): Adjusted {
  const K = p.length;
  const idx = order(p);
  const adjusted = new Array<number>(K);
  let running = 1;
  for (let j = K - 1; j >= 0; j--) {
    const orig = idx[j]!;
    // p/(j/K) rather than K·p/j: the same rounding as statsmodels, so boundary cases agree bit for bit.
    running = Math.min(running, p[orig]! / ((j + 1) / K));
    adjusted[orig] = Math.min(1, running);
  }
  return { adjusted, reject: adjusted.map((a) => a <= alpha) };
}
