/**
 * Statistics that only tests use: reference formulas the golden files check the product's choices against (Wald,
 * Agresti–Min, χ², Bonferroni, e-BH, SPRT, normal-mixture and betting confidence sequences, exact and Monte Carlo
 * bootstraps, the A/A single run, binomial test, normal CDF). They live here, outside the product bundle; the
 * product's own statistics are src/core/stats (docs/stats-spec.md).
 */
export * from "./bootstrap.js";
export * from "./intervals.js";
export * from "./metrics.js";
export * from "./multiplicity.js";
export * from "./paired.js";
export * from "./repeated.js";
export * from "./sequential.js";
export * from "./special.js";
