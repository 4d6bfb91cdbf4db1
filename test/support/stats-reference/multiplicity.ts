// Reference statistics (moved out of src/core/stats: only tests use them). See index.ts.
import type { Adjusted } from "../../../src/core/stats/multiplicity.js";

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
