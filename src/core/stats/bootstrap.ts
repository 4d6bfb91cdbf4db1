/**
 * Paired percentile bootstrap by resampling tasks (spec §4.6): secondary only, for clustered/repeated designs and
 * quantities without a closed form. Resample whole tasks (a task's value already aggregates all its runs).
 * Seeded, so a report is reproducible; quantile = smallest value whose empirical CDF is ≥ p (numpy inverted_cdf).
 */

/** mulberry32: a small, fast, well-distributed 32-bit PRNG; adequate for resampling indices. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
