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

/** Benjamini–Yekutieli: BH times Σ1/i, valid under arbitrary dependence (overlapping skill subsets). */
export function benjaminiYekutieli(p: readonly number[], alpha = 0.05): Adjusted {
  let h = 0;
  for (let i = 1; i <= p.length; i++) h += 1 / i;
  const bh = benjaminiHochberg(
    p.map((x) => x * h),
    alpha,
  );
  return bh;
}

/** Bonferroni (reference): min(1, K·p). */
export function bonferroni(p: readonly number[], alpha = 0.05): Adjusted {
  const adjusted = p.map((x) => Math.min(1, p.length * x));
  return { adjusted, reject: adjusted.map((a) => a <= alpha) };
}

/** e-BH (Wang & Ramdas 2022): reject the k* largest e-values, k* = max{k : e₍ₖ₎ ≥ K/(α·k)}, e sorted descending. */
export function eBH(e: readonly number[], alpha = 0.05): { kStar: number; reject: boolean[] } {
  const K = e.length;
  const idx = e.map((_, i) => i).sort((i, j) => e[j]! - e[i]! || i - j);
  let kStar = 0;
  for (let k = 1; k <= K; k++) if (e[idx[k - 1]!]! >= K / (alpha * k)) kStar = k;
  const reject = new Array<boolean>(K).fill(false);
  for (let k = 0; k < kStar; k++) reject[idx[k]!] = true;
  return { kStar, reject };
}
